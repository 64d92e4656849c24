# The stage check of timeline/ (timeline/check_stage_includes.cmake) on a fixture of two stages:
# `low`, which includes a header of `high` (an include that runs back up), reaches into render/
# and climbs out of its folder with "..", and `high`, which includes `low` as it may. The check
# must fail on `low` with a line for each of those three includes (the file, the include, the
# stages allowed) and none for low/counts.hpp, and pass on `high`.
#
#   cmake -DCHECKER=timeline/check_stage_includes.cmake -DFIXTURE=this/fixture -P check_fixture.cmake
execute_process(COMMAND ${CMAKE_COMMAND} -DFOLDER=${FIXTURE}/low -DSTAGE=low -DALLOWED= -P ${CHECKER}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "the check passed timeline/low/, which includes timeline/high/:\n${output}")
endif()
# CMake wraps a message's lines: compare with the white space folded.
string(REGEX REPLACE "[ \t\n]+" " " folded "${output}")
foreach(expected
    "timeline/low/climbs.hpp: includes \"timeline/high/report.hpp\": timeline/low/ may include only timeline/{low}/"
    "timeline/low/draws.cpp: includes \"render/raster/cushion.hpp\": timeline/ draws nothing"
    "timeline/low/draws.cpp: includes \"../high/report.hpp\": name another stage's header")
  string(FIND "${folded}" "${expected}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the check's message lacks \"${expected}\":\n${output}")
  endif()
endforeach()
string(FIND "${folded}" "counts.hpp" at)
if(NOT at LESS 0)
  message(FATAL_ERROR "the check named low/counts.hpp, which includes only its own stage:\n${output}")
endif()

execute_process(COMMAND ${CMAKE_COMMAND} -DFOLDER=${FIXTURE}/high -DSTAGE=high -DALLOWED=low -P ${CHECKER}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the check refused timeline/high/, which includes only timeline/low/:\n${output}")
endif()
