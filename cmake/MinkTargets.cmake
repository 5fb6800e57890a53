# mink_library(NAME n SRCS ... DEPS ...): static library mink_<n> (alias mink::<n>) rooted at src/.
# A library links only the layers it may depend on, so a wrong include fails to build.
# -Wrestrict has false positives in g++ 12 at -O3 (GCC bug 105329).
set(MINK_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers -Wno-error=restrict)

function(mink_library)
  cmake_parse_arguments(ARG "" "NAME" "SRCS;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(mink_${ARG_NAME} STATIC ${ARG_SRCS})
  add_library(mink::${ARG_NAME} ALIAS mink_${ARG_NAME})
  target_include_directories(mink_${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(mink_${ARG_NAME} PRIVATE ${MINK_WARNINGS})
  target_link_libraries(mink_${ARG_NAME} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# mink_test(NAME n SRCS ... DEPS ... [LABELS ...]): a GoogleTest binary, each test registered
# with CTest as <n>.<Suite>.<Test>.
function(mink_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  if(NOT MINK_BUILD_TESTS)
    return()
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  add_executable(${ARG_NAME}_test ${ARG_SRCS})
  target_compile_options(${ARG_NAME}_test PRIVATE ${MINK_WARNINGS})
  target_link_libraries(${ARG_NAME}_test PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  gtest_discover_tests(${ARG_NAME}_test TEST_PREFIX "${ARG_NAME}." DISCOVERY_TIMEOUT 60
                       PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
endfunction()
