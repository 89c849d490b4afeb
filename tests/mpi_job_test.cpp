// How trainsim and trainsim-calibrate tell they were started by an MPI launcher
// (sim/core/mpi_job.h).
#include "core/mpi_job.h"

#include <cstdlib>
#include <map>
#include <string>

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {

auto env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("mpi: a job of more than one process is recognised from its launcher", "[mpi]") {
  CHECK(mpi::launched(env_of({{"OMPI_COMM_WORLD_SIZE", "16"}})));       // Open MPI's mpirun
  CHECK(mpi::launched(env_of({{"PMI_SIZE", "2"}})));                    // MPICH / Intel MPI / Slurm
  CHECK_FALSE(mpi::launched(env_of({})));                               // started by hand
  CHECK_FALSE(mpi::launched(env_of({{"OMPI_COMM_WORLD_SIZE", "1"}})));  // mpirun -np 1: alone
  CHECK_FALSE(mpi::launched(env_of({{"PMI_SIZE", "garbage"}})));
}

TEST_CASE("mpi: a process started by hand is a world of one", "[mpi]") {
  if (mpi::launched([](const char* v) { return std::getenv(v); })) return;  // run under mpirun
  const mpi::World world;
  CHECK(world.size() == 1);
  CHECK(world.rank() == 0);
  CHECK(world.nodes() == 1);
  CHECK(world.max(2.5) == 2.5);
}
