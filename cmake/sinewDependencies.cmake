# SPDX-License-Identifier: MIT
# The libraries sinew's parts link, as imported targets named sinew_dep::*,
# found the same way when sinew is built and when an installed sinew is
# found (sinewConfig.cmake includes this file): cJSON for libsinew_import,
# Assimp when it was built with it, libepoxy for libsinew_gpu's GL helper.
# Debian's packages install them in the system's paths; CMAKE_PREFIX_PATH
# finds them elsewhere.
include_guard(GLOBAL)

# sinew_dependency(NAME HEADER LIBRARY): sinew_dep::NAME, or nothing when
# the header or the library is not found (the caller decides whether that
# is fatal).
function(sinew_dependency name header library)
  if(TARGET sinew_dep::${name})
    return()
  endif()
  string(TOUPPER "${name}" upper)
  find_path(SINEW_${upper}_INCLUDE ${header})
  find_library(SINEW_${upper}_LIBRARY ${library})
  if(SINEW_${upper}_INCLUDE AND SINEW_${upper}_LIBRARY)
    add_library(sinew_dep::${name} UNKNOWN IMPORTED GLOBAL)
    set_target_properties(sinew_dep::${name} PROPERTIES
      IMPORTED_LOCATION "${SINEW_${upper}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${SINEW_${upper}_INCLUDE}")
  endif()
endfunction()
