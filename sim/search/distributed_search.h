#pragma once
// The layout search over the processes of an MPI job (`mpirun -np N trainsim search …`): every
// process builds the same candidate list, deals it out in one fixed shuffled order (so no
// process gets every layout of one kind), simulates its share on its own pool of threads, and
// sends its results to rank 0, which ranks the whole set as search_layouts does; the output is
// the same as one process's, byte for byte.
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "core/mpi_job.h"
#include "search/layout_search.h"

namespace trainsim {

/// search_layouts over `world`: rank 0 returns the ranked results of all candidates, the
/// others an empty list. `progress(done, total)` counts this process's share. With options.jobs
/// 0, each process runs the node's hardware threads over the processes on the node. A world of
/// one is search_layouts.
std::vector<SearchResult> search_layouts(
    const mpi::World& world, const Scenario& base, const SearchSpace& space,
    const SearchOptions& options = {},
    const std::function<void(std::size_t, std::size_t)>& progress = {});

/// Results with their candidate indices as bytes for the trip to rank 0 (MessagePack of every
/// field, doubles exact), and back. decode_results throws InternalError on bytes it cannot read.
std::string encode_results(const std::vector<std::pair<std::size_t, SearchResult>>& results);
std::vector<std::pair<std::size_t, SearchResult>> decode_results(const std::string& bytes);

}  // namespace trainsim
