// strata::Error: every failure Strata reports, from the CLI and the library alike.
#pragma once
#include <stdexcept>
#include <string>

namespace strata {

/// What an Error is about. kInput: bad input (a file, a flag, a size, a value); the
/// message names what and where, and the CLI exits with status 2. kInternal: anything
/// else (a failed system call, a broken invariant); the CLI exits with status 1.
enum class ErrorKind { kInput, kInternal };

/// The one exception type Strata throws; what() is a single line.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  /// True when every rank of the job threw this same error (setup steps such as loading
  /// and partitioning agree on failure): each rank may then return normally. When false,
  /// the other ranks may be blocked waiting for this one, so the job should be aborted
  /// (Workers::abort).
  virtual bool every_rank() const { return false; }

 private:
  ErrorKind kind_;
};

}  // namespace strata
