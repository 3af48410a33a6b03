// Strata's public surface, all of it: train full-graph GNNs across ranks (Trainer), and
// inspect, partition and predict the communication of a dataset without training.
#pragma once
#include "strata/build_info.h"
#include "strata/comm_volume.h"
#include "strata/config.h"
#include "strata/dataset_tools.h"
#include "strata/error.h"
#include "strata/graph.h"
#include "strata/partition_tools.h"
#include "strata/plan.h"
#include "strata/result.h"
#include "strata/trainer.h"
#include "strata/workers.h"
