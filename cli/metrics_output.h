// The progress line per epoch, the final line, and the --metrics JSON Lines file.
#pragma once
#include <fstream>
#include <string>

#include "strata/strata.h"

namespace strata::cli {

class MetricsOutput {
 public:
  // print: whether this process writes to stdout (rank 0 only in a job). append: keep
  // what the file holds (a resumed run; a killed run's epochs after its last checkpoint
  // then appear twice, and the later line is the one that counts).
  MetricsOutput(const std::string& path, bool print, bool append);
  void epoch(const EpochRecord& m);
  void finish(const TrainingResult& result);

 private:
  void write(const std::string& line);
  std::ofstream file_;
  bool print_;
};

}  // namespace strata::cli
