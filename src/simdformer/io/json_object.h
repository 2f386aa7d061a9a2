// JSON objects built from name/value pairs without leaking when an allocation fails.
//
// nlohmann::json's initializer-list constructor allocates the object's map first and then copies
// the members in; when a copy throws (std::bad_alloc on a full heap) the half-built json is never
// destroyed and its map leaks (LeakSanitizer on entry_test's every-allocation-fails runs). Here
// the object is a complete json before any member is added, and on failure it is emptied
// bottom-up first (release_json): its destructor would otherwise allocate while the heap is full.
#pragma once

#include <initializer_list>
#include <utility>

#include <nlohmann/json.hpp>

#include "simdformer/io/json_limits.h"

namespace simdformer {

inline nlohmann::json json_object(std::initializer_list<std::pair<const char*, nlohmann::json>> members) {
    nlohmann::json object = nlohmann::json::object();
    try {
        for (const auto& [name, value] : members) object[name] = value;
    } catch (...) {
        release_json(object);
        throw;
    }
    return object;
}

}  // namespace simdformer
