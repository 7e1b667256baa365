# parfilter_enable_cuda(): CUDA in the calling directory (the backend's and its benchmarks').
#
# CMAKE_CUDA_ARCHITECTURES defaults to Hopper (H100/H200) machine code plus its PTX, which the
# driver can compile for newer GPUs; override it with -DCMAKE_CUDA_ARCHITECTURES=...
macro(parfilter_enable_cuda)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING
        "CUDA architectures to build for" FORCE)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # The shared headers are C++20. CMake before 3.26 knows no C++20 flag for nvcc (the core's
  # cxx_std_20 requirement reaches the .cu files too): tell it the flag.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
endmacro()
