// Whether this translation unit is compiled with exceptions. Games often
// build with -fno-exceptions: then bitrep never throws (every entry point
// that returns a status works as documented; a failed allocation ends the
// program, as anywhere in such a build), and the few convenience forms whose
// only way to report a failure is a thrown write_error refuse to compile,
// naming the form that returns a status instead.
#pragma once

#include <bitrep/detail/portability.hpp> // BITREP_HAS_EXCEPTIONS
