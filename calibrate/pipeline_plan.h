#pragma once
// A pipeline replayed on real GPUs (`validate --gpus N`), worked out without a GPU: each
// pipeline rank's compute actions in schedule order, the activation and gradient transfers
// between ranks, and a check that the replay finishes.
//
// The replay mirrors what trainsim simulates (lower/pass_p2p): every ordered pair of ranks that
// exchanges data is a channel, its messages in the order the sender produces them, sent on the
// sender's stream for that channel once the producing compute ends and received on the
// receiver's stream for it, the consuming compute waiting for the receive. On the GPUs a channel
// is a two-rank NCCL communicator with a send stream and a receive stream, and the waits are
// CUDA events. A plain "send after compute, receive before compute" on one stream deadlocks for
// every schedule but AFAB, 1F1B and ZB-H1 (find_replay_deadlock shows why); channels do not.
#include <string>  // std::string
#include <vector>  // std::vector

#include "run/timeline.h"
#include "schedules/schedule.h"

namespace trainsim {

/// One activation (forward) or input gradient (backward) crossing from one rank to another.
struct Message {
  bool gradient = false;
  int stage = 0;  ///< the stage that produces it
  int microbatch = 0;
  friend bool operator==(const Message&, const Message&) = default;
};
/// "activation 1F3", "gradient 2B0".
std::string to_string(const Message& m);

/// The messages from one pipeline rank to another, in the order the sender produces them.
struct Channel {
  int from = 0, to = 0;
  std::vector<Message> messages;
};

/// Message `index` of channel `channel`.
struct MessageRef {
  int channel = 0;
  int index = 0;
  friend bool operator==(const MessageRef&, const MessageRef&) = default;
};

struct ReplayStep {
  /// One action, or an overlapped F&B pair (DualPipeV).
  std::vector<Action> compute;
  std::vector<MessageRef> receives;  ///< waited for before the compute starts
  std::vector<MessageRef> sends;     ///< sent once it ends
};

struct PipelineReplay {
  std::vector<std::vector<ReplayStep>> ranks;  ///< per pipeline rank, in schedule order
  std::vector<Channel> channels;
};

/// The replay of `s`. A message exists where a forward's output feeds the next stage, or a
/// backward's (B, or I when split) input gradient the previous stage, on another rank;
/// neighbouring stages on one rank (the V placements) exchange nothing.
PipelineReplay plan_pipeline_replay(const Schedule& s);

/// Runs the replay as the GPUs would: a rank's computes one after another, each once its
/// receives are done; a channel's messages one after another, each once its producing compute
/// is done (send and receive finish together). Returns "" when everything runs; otherwise the
/// ranks left waiting and on what.
std::string find_replay_deadlock(const PipelineReplay& r);

/// One pipeline rank's compute (F, B, I, W, F&B) in a step, in seconds from the step's start,
/// as trainsim predicts it (replica 0) or `validate --gpus N` measures it; the DP reduction and
/// optimizer after it are not included.
struct RankTimes {
  double first_start = 0;  ///< its first compute's start
  double last_end = 0;     ///< its last compute's end
  double compute = 0;      ///< the sum of its computes' durations
};
/// Per pipeline rank, from a simulated step.
std::vector<RankTimes> predict_pipeline(const Timeline& tl);

}  // namespace trainsim
