// Byte sources: memory and files. (The JavaScript-callback source lives in bindings/embind.cpp.)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "simdformer/io.h"

namespace simdformer {

// [offset, offset + n) inside a source of `size` bytes, written so it cannot overflow.
Status check_range(uint64_t offset, uint64_t n, uint64_t size, const std::string& what) {
    if (offset > size || n > size - offset)
        return Status::io(cat({what, ": bytes [", offset, ", ", offset, " + ",
                               n, ") are beyond its end (", size,
                               " bytes): the file is truncated or corrupt"}));
    return Status::ok();
}

Status MemorySource::read(uint64_t offset, size_t n, uint8_t* dst) {
    SF_RETURN_IF_ERROR(check_range(offset, n, size_, "memory source"));
    if (n) std::memcpy(dst, data_ + offset, n);
    return Status::ok();
}

FileSource::~FileSource() {
    if (file_) std::fclose(static_cast<std::FILE*>(file_));
}

FileSource::FileSource(FileSource&& other) noexcept : file_(other.file_), size_(other.size_), path_(std::move(other.path_)) {
    other.file_ = nullptr;
}

FileSource& FileSource::operator=(FileSource&& other) noexcept {
    if (this != &other) {
        if (file_) std::fclose(static_cast<std::FILE*>(file_));
        file_ = other.file_;
        size_ = other.size_;
        path_ = std::move(other.path_);
        other.file_ = nullptr;
    }
    return *this;
}

Result<FileSource> FileSource::open(const std::string& path) {
    // Regular files only, checked on the open descriptor: fopen() of a FIFO without a writer blocks
    // forever (a non-blocking open returns at once), and a folder or a device (/dev/zero, which
    // seeks to a size of 0) is no model file.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Status::io(cat({"cannot open '", path, "'"}));
    struct stat st;
    std::FILE* f = nullptr;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || !(f = fdopen(fd, "rb"))) {
        ::close(fd);
        return Status::io(cat({"'", path, "' is not a regular file"}));
    }
    FileSource source;
    source.file_ = f;
    source.path_ = path;
    source.size_ = uint64_t(st.st_size);
    return source;
}

Status FileSource::read(uint64_t offset, size_t n, uint8_t* dst) {
    SF_RETURN_IF_ERROR(check_range(offset, n, size_, "'" + path_ + "'"));
    std::FILE* f = static_cast<std::FILE*>(file_);
    if (!f) return Status::io("file source is closed");
    if (n == 0) return Status::ok();
    if (fseeko(f, off_t(offset), SEEK_SET) != 0 || std::fread(dst, 1, n, f) != n)
        return Status::io(cat({"cannot read ", n, " bytes at offset ", offset, " of '",
                               path_, "'"}));
    return Status::ok();
}

}  // namespace simdformer
