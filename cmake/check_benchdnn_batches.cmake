# Runs `memfmt reorder ARGS --batch=F` on every file of oneDNN's benchdnn reorder
# inputs (INPUTS; or only the files named in FILES) and checks that each runs to its
# end: every problem planned (or run) or skipped with a reason, none rejected, the
# summary reached. With MODE_C, also that no problem is a mismatch (memfmt differing
# from the scalar reference; where oneDNN differs, the reference settles it) and the
# exit status is 0. Prints the counts of each file and its skips by reason.
#   -DPROGRAM=memfmt -DINPUTS=dir [-DFILES=a;b] [-DARGS=--plan] [-DMODE_C=ON]

if(NOT IS_DIRECTORY "${INPUTS}")
  message(FATAL_ERROR "benchdnn reorder inputs not found: '${INPUTS}' is not a directory. Set "
    "MEMFMT_BENCHDNN_INPUTS to a copy of oneDNN's tests/benchdnn/inputs/reorder/ (see the README.md "
    "in /work/shared/benchdnn-reorder-inputs).")
endif()
if(NOT FILES)
  file(GLOB paths LIST_DIRECTORIES false "${INPUTS}/*")
  set(FILES "")
  foreach(path IN LISTS paths)
    get_filename_component(name "${path}" NAME)
    if(NOT name MATCHES "\\.md$")
      list(APPEND FILES "${name}")
    endif()
  endforeach()
endif()
list(LENGTH FILES count)
if(count EQUAL 0)
  message(FATAL_ERROR "no batch files in '${INPUTS}'")
endif()

set(problems "")
foreach(name IN LISTS FILES)
  execute_process(
    COMMAND "${PROGRAM}" reorder ${ARGS} "--batch=${INPUTS}/${name}"
    RESULT_VARIABLE status
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  set(out "\n${out}")  # every problem's first line after a newline, the first one too
  # (CMake's regular expressions capture 9 groups at most: the total checked is summed)
  set(re "\n([0-9]+) problems?; [0-9]+ checked: ([0-9]+) equal to oneDNN, ([0-9]+) equal to the reference where oneDNN is wrong \\(([0-9]+) known oneDNN 2.6 errors\\), ([0-9]+) equal to the reference where oneDNN cannot run them, ([0-9]+) mismatch[es]* \\(memfmt differs from the reference\\); ([0-9]+) planned, ([0-9]+) skipped, ([0-9]+) rejected by memfmt\n")
  if(NOT out MATCHES "${re}")
    string(LENGTH "${out}" length)
    if(length GREATER 3000)
      math(EXPR from "${length} - 3000")
      string(SUBSTRING "${out}" ${from} -1 out)
    endif()
    string(APPEND problems "${name}: stopped (exit ${status}) before its summary:\n...${out}\n${err}\n")
    continue()
  endif()
  set(total ${CMAKE_MATCH_1})
  set(equal ${CMAKE_MATCH_2})
  set(onednn_wrong ${CMAKE_MATCH_3})
  set(known ${CMAKE_MATCH_4})
  set(reference_only ${CMAKE_MATCH_5})
  set(mismatches ${CMAKE_MATCH_6})
  set(planned ${CMAKE_MATCH_7})
  set(skipped ${CMAKE_MATCH_8})
  set(rejected ${CMAKE_MATCH_9})
  math(EXPR checked "${equal} + ${onednn_wrong} + ${reference_only} + ${mismatches}")
  math(EXPR accounted "${planned} + ${skipped}")
  message("${name}: ${total} problems, ${planned} planned, ${skipped} skipped, ${checked} checked: ${equal} equal "
          "to oneDNN, ${onednn_wrong} equal to the reference where oneDNN is wrong (${known} known oneDNN 2.6 "
          "errors), ${reference_only} equal to the reference where oneDNN cannot run them, ${mismatches} mismatches")
  string(REGEX MATCHALL "\n  skipped +[0-9]+  [^\n]+" reasons "${out}")
  foreach(reason IN LISTS reasons)
    string(STRIP "${reason}" reason)
    message("    ${reason}")
  endforeach()
  if(NOT accounted EQUAL total)
    string(APPEND problems "${name}: ${total} problems but ${planned} planned + ${skipped} skipped\n")
  endif()
  if(NOT rejected EQUAL 0)
    string(REGEX MATCHALL "\n\\[[0-9]+\\] [^\n]+\n    rejected by memfmt: [^\n]+" lines "${out}")
    string(APPEND problems "${name}: ${rejected} problems rejected by memfmt:${lines}\n")
  endif()
  string(REGEX MATCHALL "\n    skipped: *(\\(|\n)" unexplained "${out}")
  if(unexplained)
    string(APPEND problems "${name}: a problem skipped without a reason\n")
  endif()
  # in mode C every problem planned is checked: against oneDNN, or the reference alone
  if(MODE_C AND (checked EQUAL 0 OR NOT checked EQUAL planned))
    string(APPEND problems "${name}: ${checked} problems checked of ${planned} planned\n")
  endif()
  if(MODE_C AND NOT mismatches EQUAL 0)
    string(REGEX MATCHALL "\n\\[[0-9]+\\] [^\n]+\n(    [^\n]*\n)*    check MISMATCH[^\n]+\n[^\n]+" lines "${out}")
    string(APPEND problems "${name}: ${mismatches} mismatches, where memfmt differs from the reference:${lines}\n")
  endif()
  if(NOT status EQUAL 0)
    string(APPEND problems "${name}: exit status ${status}\n")
  endif()
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
