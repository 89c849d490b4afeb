#pragma once
// A loop over indices on a pool of threads: what search and compare use to run many variants of
// a scenario on every core.
#include <cstddef>     // std::size_t
#include <functional>  // std::function

namespace trainsim {

/// Runs work(i) for every i in [0, n) on `jobs` threads (0: the machine's hardware threads; never
/// more than n), the indices taken in order; progress(done, n) after each, from one thread at a
/// time. An exception from work stops the others taking more and is rethrown on the calling
/// thread once they are done. A caller that stores each result at its index gets the same
/// results for any number of threads.
void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& work,
                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace trainsim
