// path_view: how bitrep's file functions take a path.
#pragma once

#include <concepts>
#include <string>
#include <string_view>

namespace bitrep {

/// A file's path as the file functions take it, without <filesystem> in
/// bitrep's headers: a string literal, a std::string or std::string_view, or
/// a std::filesystem::path (by its native string; POSIX paths are narrow).
/// It refers to the caller's text, so it is only ever a parameter.
class path_view {
public:
    constexpr path_view(const char* path) noexcept : text_(path) {}
    constexpr path_view(std::string_view path) noexcept : text_(path) {}
    path_view(const std::string& path) noexcept : text_(path) {}
    template <class Path>
        requires requires(const Path& path) {
            { path.native() } -> std::convertible_to<std::string_view>;
        }
    path_view(const Path& path) noexcept : text_(path.native())
    {
    }
    constexpr std::string_view text() const noexcept { return text_; }

private:
    std::string_view text_;
};

} // namespace bitrep
