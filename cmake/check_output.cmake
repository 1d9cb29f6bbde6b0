# Runs PROGRAM with ARGS and checks what it did:
#   EXIT         the expected exit status
#   EXPECT       regular expressions that must all match its output (stdout and stderr)
#   REJECT       regular expressions that must not match it
#   FILE         a file the program must have written, whose text must match
#   FILE_EXPECT  every one of these regular expressions
# Prints the output on failure, so that CTest's log shows what was wrong.

if(FILE)
  file(REMOVE "${FILE}")  # written by this run, not left by an earlier one
endif()
execute_process(
  COMMAND "${PROGRAM}" ${ARGS}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
set(all "${out}${err}")

set(problems "")
if(NOT "${status}" STREQUAL "${EXIT}")
  string(APPEND problems "exit status ${status}, expected ${EXIT}\n")
endif()
foreach(re IN LISTS EXPECT)
  if(NOT all MATCHES "${re}")
    string(APPEND problems "output does not match: ${re}\n")
  endif()
endforeach()
foreach(re IN LISTS REJECT)
  if(all MATCHES "${re}")
    string(APPEND problems "output matches what it must not: ${re}\n")
  endif()
endforeach()
if(FILE)
  if(NOT EXISTS "${FILE}")
    string(APPEND problems "file not written: ${FILE}\n")
  else()
    file(READ "${FILE}" text)
    foreach(re IN LISTS FILE_EXPECT)
      if(NOT text MATCHES "${re}")
        string(APPEND problems "${FILE} does not match: ${re}\n")
      endif()
    endforeach()
  endif()
endif()

if(problems)
  message("---- output of ${PROGRAM} ${ARGS}\n${all}----")
  message(FATAL_ERROR "${problems}")
endif()
message("${all}")
