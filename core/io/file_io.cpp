#include "io/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <vector>

namespace attnviz {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Writes all bytes to fd; returns errno or 0.
int WriteAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += (size_t)n;
  }
  return 0;
}

std::string ParentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// "out/" -> "out" (but "/" stays "/").
std::string WithoutTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// A fresh short name in `dir`: ".~PID-N.tmp" fits NAME_MAX whatever the target's name is.
std::string TemporaryName(const std::string& dir) {
  static std::atomic<unsigned> counter{0};
  return dir + "/.~" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tmp";
}

// ---- Temporary files removed on SIGINT/SIGTERM. The handler may only use async-signal-safe calls,
// so the registry is a fixed table of paths with an atomic state each.
enum SlotState : int { kFree = 0, kBusy, kFile, kFolder };
struct TemporarySlot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
TemporarySlot g_temporaries[256];
struct sigaction g_previous[2];  // SIGINT, SIGTERM before ours

void RemoveTemporaries() {
  for (int kind : {kFile, kFolder}) {
    for (TemporarySlot& slot : g_temporaries) {
      if (slot.state.load() != kind) continue;
      if (kind == kFile) ::unlink(slot.path);
      else ::rmdir(slot.path);
    }
  }
}

void OnTerminatingSignal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  RemoveTemporaries();
  const struct sigaction& previous = g_previous[sig == SIGINT ? 0 : 1];
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    ::signal(sig, SIG_DFL);  // what the signal did before: end the process
    ::raise(sig);
  }
  errno = saved_errno;
}

void InstallSignalCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    const int signals[2] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; ++i) {
      struct sigaction previous;
      if (::sigaction(signals[i], nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN) continue;  // nohup
      g_previous[i] = previous;
      struct sigaction sa;
      std::memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = OnTerminatingSignal;
      sa.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&sa.sa_mask);
      ::sigaction(signals[i], &sa, nullptr);
    }
  });
}

// The names in a folder, "." and ".." left out (empty when it cannot be read).
std::vector<std::string> FolderEntries(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (struct dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  return names;
}
// The file a write to `path` lands in: a symlink is followed (hop by hop, to keep the link a link).
Result<std::string> WriteTarget(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string link(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n <= 0) return Status::Error(MsgId::kCannotReadLink, {p, ErrnoText(errno)});
    link.resize((size_t)n);
    p = link[0] == '/' ? link : ParentDir(p) + "/" + link;
  }
  return Status::Error(MsgId::kTooManyLinks, {path});
}

}  // namespace

void RegisterTemporary(const std::string& path, bool is_folder) {
  if (path.size() >= PATH_MAX) return;  // cannot be kept for the handler; still removed on failure
  InstallSignalCleanup();
  for (TemporarySlot& slot : g_temporaries) {
    int expected = kFree;
    if (!slot.state.compare_exchange_strong(expected, kBusy)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(is_folder ? kFolder : kFile);
    return;
  }
}

void ForgetTemporary(const std::string& path) {
  for (TemporarySlot& slot : g_temporaries) {
    int kind = slot.state.load();
    if (kind != kFile && kind != kFolder) continue;
    const bool inside = std::strncmp(slot.path, path.c_str(), path.size()) == 0 &&
                        (slot.path[path.size()] == '\0' || slot.path[path.size()] == '/');
    if (inside && slot.state.compare_exchange_strong(kind, kBusy)) slot.state.store(kFree);
  }
}

Status CheckWriteTarget(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status::Ok();  // a new file (or one the write itself reports on)
  if (S_ISDIR(st.st_mode)) return Status::Error(MsgId::kIsAFolderGiveFile, {path});
  if (!S_ISREG(st.st_mode)) return Status::Error(MsgId::kNotRegularToWrite, {path});
  return Status::Ok();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 || errno == ELOOP;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsFolder(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string ByteSizeText(size_t bytes) {
  if (bytes >= (size_t(1) << 30) && bytes % (size_t(1) << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (size_t(1) << 20) && bytes % (size_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (size_t(1) << 10) && bytes % (size_t(1) << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

Result<std::string> ReadFile(const std::string& path, size_t max_bytes, const std::string& what) {
  // Opened first and checked with fstat: what is checked is what is read. O_NONBLOCK: a FIFO does not
  // wait for a writer (it is refused right after, as not regular).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::Error(MsgId::kCannotOpen, {path, ErrnoText(errno)});
  struct stat st;
  Status problem;
  if (::fstat(fd, &st) != 0) {
    problem = Status::Error(MsgId::kReadStatFailed, {path, ErrnoText(errno)});
  } else if (S_ISDIR(st.st_mode)) {
    problem = Status::Error(MsgId::kIsAFolder, {path});
  } else if (!S_ISREG(st.st_mode)) {
    problem = Status::Error(MsgId::kNotRegularFileToRead, {path, what});
  } else if ((unsigned long long)st.st_size > max_bytes) {
    problem = Status::Error(MsgId::kFileTooLargeFor, {path, std::to_string((unsigned long long)st.st_size), what,
                                                       ByteSizeText(max_bytes)});
  }
  std::string data;
  if (problem.ok()) {
    // Read to the end, never past max_bytes + 1: a file that grows while read (or a /proc file whose
    // size says 0) is bounded as well.
    data.resize(std::min<size_t>((size_t)st.st_size, max_bytes) + 1);
    size_t done = 0;
    for (;;) {
      if (done == data.size()) {
        if (data.size() > max_bytes) {
          problem = Status::Error(MsgId::kFileGrewWhileRead, {path, ByteSizeText(max_bytes), what});
          break;
        }
        data.resize(std::min(max_bytes + 1, data.size() * 2));
      }
      const ssize_t n = ::read(fd, &data[done], data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        problem = Status::Error(MsgId::kReadError, {path, ErrnoText(errno)});
        break;
      }
      if (n == 0) break;
      done += (size_t)n;
    }
    data.resize(done);
  }
  ::close(fd);
  if (!problem.ok()) return problem;
  return data;
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes) {
  if (path.empty()) return Status::Error(MsgId::kNoOutputPath, {});
  Result<std::string> target = WriteTarget(path);
  if (!target) return target.status();
  const std::string& file = *target;
  if (Status s = CheckWriteTarget(path); !s) return s;
  struct stat st;
  const bool exists = ::stat(file.c_str(), &st) == 0;
  const std::string dir = ParentDir(file);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = TemporaryName(dir);
    RegisterTemporary(tmp);  // before it exists: a signal right after the open still finds it
    // A new file: 0666 less the umask (open applies it). An existing one: its own mode, set by fchmod below.
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? 0600 : 0666);
    if (fd >= 0) break;
    const int err = errno;
    ForgetTemporary(tmp);
    if (err != EEXIST || attempt > 100)
      return Status::Error(MsgId::kCannotWriteInFolder, {path, dir, ErrnoText(err)});
  }
  int err = WriteAll(fd, bytes);
  if (!err && exists) {
    if (::fchown(fd, st.st_uid, st.st_gid) != 0) { /* only root may give a file away: keep ours */ }
    if (::fchmod(fd, st.st_mode & 07777) != 0) err = errno;
  }
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), file.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    ForgetTemporary(tmp);
    return Status::Error(MsgId::kWriteFailedNothingWritten, {path, ErrnoText(err)});
  }
  ForgetTemporary(tmp);
  return Status::Ok();
}

Status MakeDirs(const std::string& path) {
  if (path.empty()) return Status::Error(MsgId::kNoFolderGiven, {});
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    struct stat st;
    if (::stat(partial.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return Status::Error(MsgId::kExistsNotFolder, {partial});
      continue;
    }
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::Error(MsgId::kCannotCreateFolder, {partial, ErrnoText(errno)});
    }
  }
  return Status::Ok();
}

std::string FileExtension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& ch : ext) ch = (char)std::tolower((unsigned char)ch);
  return ext;
}

DumpFolder::~DumpFolder() { RemoveStaging(); }

std::string DumpFolder::Path(const std::string& name) const {
  const std::string path = staging_ + "/" + name;
  RegisterTemporary(path);
  return path;
}

void DumpFolder::RemoveStaging() {
  if (staging_.empty()) return;
  for (const std::string& name : FolderEntries(staging_)) ::unlink((staging_ + "/" + name).c_str());
  ::rmdir(staging_.c_str());
  ForgetTemporary(staging_);
  staging_.clear();
}

Status DumpFolder::Begin(const std::string& dir) {
  RemoveStaging();
  if (dir.empty()) return Status::Error(MsgId::kNoFolderGiven, {});
  dir_ = WithoutTrailingSlashes(dir);
  struct stat st;
  // An existing target: the staging folder goes inside it, so the target keeps its own mode and owner (it is never
  // replaced) and only it needs to be writable, not its parent. A new one: staged next to it, renamed into place.
  std::string where = dir_;
  if (::stat(dir_.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return Status::Error(MsgId::kExistsNotFolder, {dir});
  } else {
    where = ParentDir(dir_);
    if (Status s = MakeDirs(where); !s) return s;
  }
  for (int attempt = 0; staging_.empty(); ++attempt) {
    const std::string name = TemporaryName(where);
    RegisterTemporary(name, /*is_folder=*/true);
    if (::mkdir(name.c_str(), 0777) == 0) {
      staging_ = name;
    } else {
      const int err = errno;
      ForgetTemporary(name);
      if (err != EEXIST || attempt > 100) return Status::Error(MsgId::kCannotCreateStaging, {dir, where, ErrnoText(err)});
    }
  }
  return Status::Ok();
}

Status DumpFolder::Commit() {
  if (staging_.empty()) return Status::Error("dump folder: nothing staged");
  // A new folder: the whole staging folder renamed into place, one atomic step.
  if (ParentDir(staging_) != dir_ && ::rename(staging_.c_str(), dir_.c_str()) == 0) {
    ForgetTemporary(staging_);
    staging_.clear();
    return Status::Ok();
  }
  const std::vector<std::string> names = FolderEntries(staging_);
  // 1. A folder where a file goes cannot be moved aside as a file: refused before anything moves.
  for (const std::string& name : names) {
    struct stat st;
    const std::string target = dir_ + "/" + name;
    if (::lstat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      RemoveStaging();
      return Status::Error(MsgId::kDumpNameIsFolder, {target});
    }
  }
  // 2. All or nothing: each old entry of a name the dump writes is moved aside (into a second hidden folder in the
  //    target) before the new file moves in; on a failure the new files go back out and the old ones come back.
  //    A link left by an earlier dump (weights.npy -> probs.npy) is moved as a link, never followed.
  std::string aside;
  std::vector<std::string> moved_aside, placed;
  Status failure;
  for (const std::string& name : names) {
    const std::string target = dir_ + "/" + name;
    struct stat st;
    if (::lstat(target.c_str(), &st) == 0) {
      if (aside.empty()) {
        aside = TemporaryName(dir_);
        if (::mkdir(aside.c_str(), 0700) != 0) {
          failure = Status::Error(MsgId::kCannotMoveIntoPlace, {target, ErrnoText(errno)});
          aside.clear();
          break;
        }
      }
      if (::rename(target.c_str(), (aside + "/" + name).c_str()) != 0) {
        failure = Status::Error(MsgId::kCannotMoveIntoPlace, {target, ErrnoText(errno)});
        break;
      }
      moved_aside.push_back(name);
    }
    if (::rename((staging_ + "/" + name).c_str(), target.c_str()) != 0) {
      failure = Status::Error(MsgId::kCannotMoveIntoPlace, {target, ErrnoText(errno)});
      break;
    }
    placed.push_back(name);
  }
  if (!failure.ok()) {
    for (const std::string& name : placed) ::unlink((dir_ + "/" + name).c_str());
    for (const std::string& name : moved_aside) {
      if (::rename((aside + "/" + name).c_str(), (dir_ + "/" + name).c_str()) != 0)
        failure = Status::Error(MsgId::kCannotRestore, {dir_ + "/" + name, ErrnoText(errno)});
    }
    if (!aside.empty()) ::rmdir(aside.c_str());  // stays (with the old file) only when a restore failed
    RemoveStaging();
    return failure;
  }
  for (const std::string& name : moved_aside) ::unlink((aside + "/" + name).c_str());
  if (!aside.empty()) ::rmdir(aside.c_str());
  RemoveStaging();
  return Status::Ok();
}

}  // namespace attnviz
