#pragma once
// An MPI job (`mpirun -np N …`): which process this is, where it runs, and the few MPI calls
// trainsim makes: `trainsim search` splits its candidates over the processes and gathers the
// results on rank 0; `trainsim-calibrate collectives` runs one process per GPU across nodes, as
// nccl-tests does. Built against MPI when CMake finds it (TRAINSIM_WITH_MPI); without it every
// process is alone.
#include <functional>  // std::function
#include <string>      // std::string
#include <vector>      // std::vector

namespace trainsim::mpi {

/// True when the environment says an MPI launcher started this process among others (a job
/// size above 1): Open MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE (MPICH, Intel MPI, Slurm's
/// PMI-2). `env` looks a variable up (null: unset).
bool launched(const std::function<const char*(const char*)>& env);

/// This build talks MPI.
bool built_with_mpi();

/// One process of an MPI job (or the only one).
class World {
 public:
  /// MPI_Init and the job's shape; without MPI (or not launched) a world of one.
  World();
  /// MPI_Finalize.
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  ///< among the processes on this node
  int local_size() const { return local_size_; }  ///< processes on this node
  int nodes() const { return nodes_; }
  /// `bytes` of `data` from rank 0 to all.
  void broadcast(void* data, int bytes) const;
  /// Every rank's `mine`, in rank order, on rank 0; an empty list on the others.
  std::vector<std::string> gather(const std::string& mine) const;
  /// The largest `v` over all ranks.
  double max(double v) const;
  /// In a job of more than one process: ends all of them with `code` (after this one printed
  /// why), since one failing rank would leave the others waiting in a collective. Alone: does
  /// nothing (the caller returns its error as usual).
  void abort_job(int code) const;

 private:
  bool initialized_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, nodes_ = 1;
};

}  // namespace trainsim::mpi
