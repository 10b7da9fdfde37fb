// A fresh directory under /tmp for each test that touches files, removed
// with everything in it afterwards, whatever the test left there.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

class temporary_directory_test : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string name = (std::filesystem::temp_directory_path() / "bitrep_test_XXXXXX").string();
        ASSERT_NE(::mkdtemp(name.data()), nullptr) << std::strerror(errno);
        directory = name;
        file = directory / "slot1.sav";
    }
    void TearDown() override
    {
        std::error_code ignored;
        std::filesystem::remove_all(directory, ignored);
    }

    std::filesystem::path path(const std::string& name) const { return directory / name; }

    /// The names in a directory, sorted.
    static std::vector<std::string> entries(const std::filesystem::path& where)
    {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(where))
            names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

    std::filesystem::path directory;
    std::filesystem::path file; ///< slot1.sav in the directory (not created)
};
