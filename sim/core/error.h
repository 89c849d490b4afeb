#pragma once
// The two kinds of error: InputError for anything the user can fix
// (exit code 2), and TRAINSIM_CHECK for our own broken invariants (an internal error, exit 1).
#include <stdexcept>  // std::runtime_error, std::logic_error
#include <string>     // std::string

namespace trainsim {

/// Bad input: a scenario, a command-line value, a schedule that cannot run. `what()` is the whole
/// message a user sees, e.g. "ScenarioError: scenarios/x.yaml:14: parallelism.pp: expected an
/// integer >= 1, got 0".
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A scenario file or override that does not describe a valid training step.
class ScenarioError : public InputError {
 public:
  /// `where` is "file:line" (or "--set key=value"), `key` the dotted path of the field.
  ScenarioError(const std::string& where, const std::string& key, const std::string& message);
  const std::string& key() const { return key_; }
  /// Where the value came from: "file:line", "--set key=value", …
  const std::string& where() const { return where_; }
  /// The same error with `note` after its message (e.g. the --set edits it came from).
  ScenarioError with_note(const std::string& note) const;
  /// The same error placed at `where` instead: a value a command's own flag gave
  /// ("--forward 1e300s"), which it passed on as a --set edit.
  ScenarioError relocated(const std::string& where) const;

 private:
  struct Whole {};  // `rest`: the key and the message, already joined
  ScenarioError(Whole, const std::string& where, const std::string& rest, const std::string& key);
  std::string where_, rest_, key_;
};

/// A schedule that is unknown, cannot run with the given (p, m, v), or is malformed.
class ScheduleError : public InputError {
 public:
  /// `option`: the schedule option the error is about ("memory_limit"), if one is: the
  /// scenario places the error at that key's line.
  explicit ScheduleError(const std::string& message, std::string option = "");
  /// The message without the "ScheduleError: " prefix (for re-wrapping with a location).
  const std::string& detail() const { return detail_; }
  const std::string& option() const { return option_; }

 private:
  std::string detail_, option_;
};

/// A task graph that cannot complete (a dependency cycle); the message names the tasks.
class DeadlockError : public InputError {
 public:
  explicit DeadlockError(const std::string& message);
};

/// Inputs that are each valid but drive a duration or the simulated clock past its range
/// (int64 nanoseconds: 292 years), e.g. a rate near zero or durations in years.
class RangeError : public InputError {
 public:
  explicit RangeError(const std::string& message);
};

/// A simulation stopped on request (SimulateOptions::cancel) before it finished: neither the
/// user's fault nor a bug. Whoever asked for the stop catches it.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("the simulation was cancelled") {}
};

/// A broken internal invariant: a bug in trainsim, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace trainsim

/// Asserts an internal invariant in every build type; throws InternalError with the message.
#define TRAINSIM_CHECK(cond, msg)                                          \
  do {                                                                     \
    if (!(cond)) ::trainsim::fail_check(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)
