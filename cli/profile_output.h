// `strata train --profile`: the profile as a table and as a metrics-file line.
#pragma once
#include <nlohmann/json.hpp>

#include "strata/result.h"

namespace strata::cli {

void print_profile(const Profile& p);
nlohmann::json profile_json(const Profile& p);

}  // namespace strata::cli
