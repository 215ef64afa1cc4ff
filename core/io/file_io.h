// Bounded whole-file reads and atomic writes: a write goes to a temporary file in the same folder and
// is renamed into place, so a failure (unwritable folder, full disk, SIGINT/SIGTERM) leaves no partial
// file behind.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace attnviz {

// The largest file ReadFile takes when the caller states no smaller limit for its kind of file.
constexpr size_t kMaxReadBytes = size_t(1) << 30;

// The whole of a regular file of at most max_bytes bytes. Folders, devices (/dev/zero) and FIFOs
// (opened without blocking: a FIFO never waits for a writer) are refused, and so is a larger file or one
// that grows past the limit while it is read: "notes.txt: 20971520 bytes is too large for a sentence
// file (at most 16 MiB)". `what` names the kind of file in that message.
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = kMaxReadBytes,
                             const std::string& what = "file");
// "16 MiB", "2 GiB", "512 bytes": a limit for a message.
std::string ByteSizeText(size_t bytes);
// The one set of file-exists tests (links followed). PathExists: anything is there; a link loop counts as there,
// so opening it then names the loop instead of a missing file.
bool PathExists(const std::string& path);
// True when `path` names a regular file that exists.
bool IsRegularFile(const std::string& path);
// True when `path` names a folder that exists.
bool IsFolder(const std::string& path);
// The one writer of whole files. Regular files: a temporary file with a short name (".~PID-N.tmp",
// so any valid file name can be written) in the target's folder, fsync, rename. A symlink is written
// through to its target (the link stays a link); an existing file keeps its mode (0600 stays 0600), a new
// one gets 0666 less the umask. The temporary file is removed on failure and on SIGINT/SIGTERM (the
// signal then does what it did before). An existing non-regular target (a FIFO, a device such as
// /dev/full, a socket) is refused (CheckWriteTarget): opening a FIFO to write waits for a reader, forever.
Status WriteFileAtomic(const std::string& path, std::string_view bytes);
// Ok when `path` (links followed) does not exist or is a regular file; else "PATH: is a folder" or "PATH: is
// not a regular file (a device, FIFO or socket): refusing to write to it". Every writer checks its target so.
Status CheckWriteTarget(const std::string& path);
// For writers that make their own temporary files or folders (DumpFolder, NpyStreamWriter): `path` is
// removed if the process gets SIGINT or SIGTERM before ForgetTemporary(path). Folders are removed after
// the files (a registered folder must hold only registered files by then).
void RegisterTemporary(const std::string& path, bool is_folder = false);
void ForgetTemporary(const std::string& path);
// Creates the folder and its parents if missing.
Status MakeDirs(const std::string& path);
// "a/b/c.png" -> ".png" (lower case); "" when there is none.
std::string FileExtension(const std::string& path);

// A folder of output files that appears whole or not at all. A new `dir`: files are written into a staging
// folder next to it (".~PID-N.tmp" in its parent) that Commit() renames into place, one atomic step. An existing
// `dir`: the staging folder is inside it (`dir` keeps its mode and owner, and only `dir` must be writable, not its
// parent) and Commit() moves the files in; an old file of a name the dump writes is moved aside first and put
// back if a later move fails, so the user's files are either all replaced or all kept, and a folder of such a
// name is refused before anything moves. Without Commit() (an error, SIGINT/SIGTERM) the staging folder is
// removed and `dir` keeps what it had.
class DumpFolder {
 public:
  DumpFolder() = default;
  ~DumpFolder();
  DumpFolder(const DumpFolder&) = delete;
  DumpFolder& operator=(const DumpFolder&) = delete;
  // Creates the parents of `dir` if missing, and the staging folder.
  Status Begin(const std::string& dir);
  // Where to write `name` now (inside the staging folder); registered for removal on SIGINT/SIGTERM.
  std::string Path(const std::string& name) const;
  // Renames the staging folder into place (or moves its files into a non-empty `dir`).
  Status Commit();

 private:
  void RemoveStaging();
  std::string dir_, staging_;
};

}  // namespace attnviz
