# Builds TARGET in BUILD_DIR and passes only if the build fails, its output
# matches every regular expression in the list EXPECTED, and the mistake is
# reported once: exactly ASSERTIONS failed static assertions and at most
# ERRORS lines with "error:", so that a cascade of further errors after the
# message fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must be refused")
endif()
foreach(expected IN LISTS EXPECTED)
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "${TARGET} failed without the expected message '${expected}':\n${output}")
  endif()
endforeach()
# Counted with the output's semicolons (which messages contain) out of the
# way of CMake's lists.
string(REPLACE ";" "," text "${output}")
string(REGEX MATCHALL "[^\n]*error:[^\n]*" error_lines "${text}")
list(LENGTH error_lines errors)
string(REGEX MATCHALL "static assertion failed|static_assert failed" assertion_lines "${text}")
list(LENGTH assertion_lines assertions)
if(NOT assertions EQUAL ASSERTIONS OR errors GREATER ERRORS)
  message(FATAL_ERROR "${TARGET}: ${assertions} failed static assertions and ${errors} errors, expected "
                      "${ASSERTIONS} and at most ${ERRORS}:\n${output}")
endif()
message(STATUS "${TARGET} refused once, with every expected message")
