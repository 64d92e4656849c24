# Checks that the files of one stage of timeline/ include only their own stage's headers and those
# of the stages it may include (timeline/CMakeLists.txt), so that an include running back up a
# stage fails the build. Run by the build before each stage library, and by a test on a fixture:
#
#   cmake -DFOLDER=DIR -DSTAGE=NAME -DALLOWED=a,b [-DSTAMP=FILE] -P check_stage_includes.cmake
#
# FOLDER holds the stage's files; NAME is how timeline/ names it (`timeline/NAME/...`). Every
# quoted include of `timeline/X/...` must name NAME or one of ALLOWED; an include of render/, or
# one that climbs out of the folder with "..", is refused whatever the stage. On success, STAMP
# (when given) is touched; on failure, one line per include names the file, the line, the
# include and the stages allowed, and the script fails.
cmake_minimum_required(VERSION 3.20)
foreach(required FOLDER STAGE)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "check_stage_includes: -D${required}=... is missing")
  endif()
endforeach()

string(REPLACE "," ";" allowed "${ALLOWED},${STAGE}")
list(REMOVE_ITEM allowed "")
list(JOIN allowed ", " allowed_text)
file(GLOB_RECURSE sources LIST_DIRECTORIES false "${FOLDER}/*.hpp" "${FOLDER}/*.cpp" "${FOLDER}/*.h")
list(SORT sources)
set(problems "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  file(RELATIVE_PATH shown "${FOLDER}" "${source}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" included "${line}")
    set(why "")
    if(included MATCHES "^timeline/([^/]+)/")
      list(FIND allowed "${CMAKE_MATCH_1}" at)
      if(at LESS 0)
        set(why "timeline/${STAGE}/ may include only timeline/{${allowed_text}}/")
      endif()
    elseif(included MATCHES "^timeline/[^/]+$")
      set(why "a header of timeline/ lives in a stage folder: timeline/${STAGE}/ may include timeline/{${allowed_text}}/")
    elseif(included MATCHES "^render/")
      set(why "timeline/ draws nothing: render/ includes timeline/, never the other way")
    elseif(included MATCHES "(^|/)\\.\\.(/|$)")
      set(why "name another stage's header from the project's root (timeline/STAGE/...), not with ..")
    endif()
    if(why)
      string(APPEND problems "timeline/${STAGE}/${shown}: includes \"${included}\": ${why}\n")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "includes that run back up the stages of timeline/ (timeline/README.md):\n${problems}")
endif()
if(DEFINED STAMP)
  file(TOUCH "${STAMP}")
endif()
