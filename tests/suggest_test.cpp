#include "core/suggest.h"

#include <catch2/catch.hpp>

using namespace trainsim;

TEST_CASE("suggest: edit distance counts insertions, deletions, substitutions and swaps",
          "[suggest]") {
  CHECK(edit_distance("seq_len", "seq_len") == 0);
  CHECK(edit_distance("seq_lenn", "seq_len") == 1);  // one insertion
  CHECK(edit_distance("sq_len", "seq_len") == 1);    // one deletion
  CHECK(edit_distance("sea_len", "seq_len") == 1);   // one substitution
  CHECK(edit_distance("kitten", "sitting") == 3);    // k→s, e→i, +g
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("zeor", "zero") == 1);  // two neighbours swapped
  CHECK(edit_distance("ca", "abc") == 3);     // a swap is not reused (optimal string alignment)
}

TEST_CASE("suggest: the nearest known name, only when it is a slip", "[suggest]") {
  const std::vector<std::string> keys{"dp", "tp", "pp", "vpp", "zero", "sequence_parallel"};
  CHECK(nearest_name("zeor", keys) == "zero");                           // a swap
  CHECK(nearest_name("sequence_paralel", keys) == "sequence_parallel");  // 1 edit
  // Two-letter names: one edit is half the name, too far to guess ("tp" is not "pp").
  CHECK_FALSE(nearest_name("xp", keys).has_value());
  CHECK_FALSE(nearest_name("tp", keys).has_value());  // known: nothing to suggest
  CHECK_FALSE(nearest_name("microbatches", keys).has_value());
  // The first of equally near names.
  CHECK(nearest_name("vpq", keys) == "vpp");
  // Case is not an edit: "ZERO" is zero (0 edits), "Zeor" one swap from it; "TP" is tp.
  CHECK(nearest_name("ZERO", keys) == "zero");
  CHECK(nearest_name("Zeor", keys) == "zero");
  CHECK(nearest_name("TP", keys) == "tp");
  // Spelt out or cut short: "seq_length" is 3 edits from seq_len, which it begins with;
  // "global_batch" begins global_batch_size. Too short a stem is no guess ("seq" is not
  // seq_len: under 5 characters), nor one under half the name ("zero_stage_one" not zero).
  const std::vector<std::string> training{"seq_len", "global_batch_size", "zero"};
  CHECK(nearest_name("seq_length", training) == "seq_len");
  CHECK(nearest_name("global_batch", training) == "global_batch_size");
  CHECK(nearest_name("Seq_Length", training) == "seq_len");
  CHECK_FALSE(nearest_name("seq", training).has_value());
  CHECK_FALSE(nearest_name("zero_stage_one", training).has_value());
}
