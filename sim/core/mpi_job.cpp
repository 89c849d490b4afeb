#include "core/mpi_job.h"

#include <cstdlib>
#include <limits>

#include "core/error.h"

#ifdef TRAINSIM_WITH_MPI
#include <mpi.h>
#endif

namespace trainsim::mpi {

bool launched(const std::function<const char*(const char*)>& env) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = env(var)) return std::atoi(v) > 1;
  return false;
}

#ifdef TRAINSIM_WITH_MPI

bool built_with_mpi() {
  return true;
}

World::World() {
  if (!launched([](const char* v) { return std::getenv(v); })) return;
  MPI_Init(nullptr, nullptr);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
  int first = local_rank_ == 0 ? 1 : 0;
  MPI_Allreduce(&first, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

World::~World() {
  if (initialized_) MPI_Finalize();
}

void World::broadcast(void* data, int bytes) const {
  if (initialized_) MPI_Bcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

std::vector<std::string> World::gather(const std::string& mine) const {
  if (!initialized_) return {mine};
  TRAINSIM_CHECK(mine.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                 "mpi::World::gather: a message over 2 GiB");
  const int bytes = static_cast<int>(mine.size());
  std::vector<int> sizes(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&bytes, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(sizes.size());
  long long total = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += sizes[r];
  }
  TRAINSIM_CHECK(total <= std::numeric_limits<int>::max(), "mpi::World::gather: over 2 GiB in all");
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), bytes, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < sizes.size(); ++r)
    out.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(sizes[r])));
  return out;
}

double World::max(double v) const {
  double out = v;
  if (initialized_) MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

void World::abort_job(int code) const {
  if (initialized_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

#else

bool built_with_mpi() {
  return false;
}
World::World() = default;
World::~World() = default;
void World::broadcast(void*, int) const {}
std::vector<std::string> World::gather(const std::string& mine) const {
  return {mine};
}
double World::max(double v) const {
  return v;
}
void World::abort_job(int) const {}

#endif

}  // namespace trainsim::mpi
