# cmake -DFROM=<Valgrind's folder of tools> -DTO=<memlog's tool folder> -P link_valgrind_files.cmake
# Links every file of FROM into TO, but memlog's own tool: VALGRIND_LIB=TO then finds both.
file(GLOB entries RELATIVE ${FROM} ${FROM}/*)
file(MAKE_DIRECTORY ${TO})
foreach(entry IN LISTS entries)
  if(NOT entry MATCHES "^memlog-")
    file(CREATE_LINK ${FROM}/${entry} ${TO}/${entry} SYMBOLIC)
  endif()
endforeach()
