#include "profile_update.h"

#include <ctime>

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"

namespace trainsim {
namespace {

// The file's samples of one kind with `fresh`'s merged in: the fresh sample of a key the file
// holds replaces it in place; new keys follow, in `fresh`'s order.
template <typename Sample>
std::vector<Sample> merged(const std::vector<Sample>& old, const std::vector<Sample>& fresh,
                           ProfileUpdate& u) {
  std::map<decltype(sample_key(fresh.front())), std::size_t> index;
  for (std::size_t i = 0; i < fresh.size(); ++i) index.emplace(sample_key(fresh[i]), i);
  std::vector<Sample> out;
  std::vector<bool> used(fresh.size(), false);
  for (const Sample& s : old) {
    const auto it = index.find(sample_key(s));
    if (it == index.end()) {
      out.push_back(s);
      ++u.kept;
    } else {
      out.push_back(fresh[it->second]);
      used[it->second] = true;
      ++u.replaced;
    }
  }
  for (std::size_t i = 0; i < fresh.size(); ++i)
    if (!used[i]) {
      out.push_back(fresh[i]);
      ++u.added;
    }
  return out;
}

void check_device(const CalibrationProfile& old, const std::string& path,
                  const std::string& device) {
  if (const std::string why = gpu_mismatch(old.provenance.device, device); !why.empty())
    throw InputError(fmt::format(
        "{}: holds samples measured on \"{}\", these are measured on \"{}\" ({}): a "
        "profile prices the GPU it was measured on; write them to another profile (--out)",
        path, old.provenance.device, device, why));
}

std::string either(const std::string& fresh, const std::string& old) {
  return fresh.empty() ? old : fresh;
}

// The file's value with the update's beside it when it is not already listed: the profile's
// samples were measured under both ("vm, node-a"; "2.28.3, 2.21.5").
std::string both(const std::string& fresh, const std::string& old) {
  if (old.empty()) return fresh;
  if (fresh.empty()) return old;
  std::size_t at = 0;
  while (at <= old.size()) {
    const std::size_t end = std::min(old.find(", ", at), old.size());
    if (old.compare(at, end - at, fresh) == 0) return old;
    at = end + 2;
  }
  return old + ", " + fresh;
}

}  // namespace

ProfileUpdate update_profile(const std::string& path, CalibrationProfile fresh,
                             ProfileSection section) {
  ProfileUpdate u;
  if (!std::filesystem::exists(path)) {
    if (section == ProfileSection::Compute) fresh.collectives.clear();
    if (section == ProfileSection::Collectives)
      fresh.gemms.clear(), fresh.memory.clear(), fresh.attention.clear();
    u.added = static_cast<int>(fresh.gemms.size() + fresh.memory.size() + fresh.attention.size() +
                               fresh.collectives.size());
    save_profile(fresh, path);
    u.profile = std::move(fresh);
    return u;
  }
  const CalibrationProfile old = load_profile(path);  // throws if it is not a profile
  u.existed = true;
  check_device(old, path, fresh.provenance.device);
  CalibrationProfile out = old;
  if (section != ProfileSection::Collectives) {
    out.gemms = merged(old.gemms, fresh.gemms, u);
    out.memory = merged(old.memory, fresh.memory, u);
    out.attention = merged(old.attention, fresh.attention, u);
  }
  if (section != ProfileSection::Compute)
    out.collectives = merged(old.collectives, fresh.collectives, u);
  const Provenance& f = fresh.provenance;
  Provenance& v = out.provenance;
  v = {either(v.device, f.device), both(f.driver, v.driver), both(f.cuda, v.cuda),
       both(f.cublas, v.cublas),   both(f.nccl, v.nccl),     either(f.date, v.date),
       both(f.host, v.host)};
  save_profile(out, path);
  u.profile = std::move(out);
  return u;
}

void check_profile_target(const std::string& path, const std::string& device) {
  if (std::filesystem::exists(path)) check_device(load_profile(path), path, device);
}

std::string describe(const ProfileUpdate& u) {
  if (!u.existed) return "";
  return fmt::format(" ({} new, {} replacing the file's, {} of the file's kept)", u.added,
                     u.replaced, u.kept);
}

std::string now_iso8601() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace trainsim
