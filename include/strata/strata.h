// Strata's public surface: load a dataset, configure training, train, read the result.
#pragma once
#include "strata/datasets/dataset.h"
#include "strata/pipeline/local_trainer.h"
#include "strata/pipeline/train_config.h"
