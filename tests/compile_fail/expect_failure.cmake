# Builds TARGET in BUILD_DIR and passes only if the build fails and its output
# matches every regular expression in the list EXPECTED.
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
message(STATUS "${TARGET} refused with every expected message")
