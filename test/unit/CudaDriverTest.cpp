//===- CudaDriverTest.cpp - Loading the CUDA driver at run time -----------===//

#include "runtime/CudaDriver.h"

#include <gtest/gtest.h>

using kiln::runtime::CudaDriver;
using kiln::runtime::DeviceInfo;

namespace {

TEST(CudaDriver, MissingLibraryIsAClearError) {
  std::string error;
  auto driver = CudaDriver::load(error, "libcuda-does-not-exist.so.1");
  EXPECT_EQ(driver, nullptr);
  EXPECT_NE(error.find("cannot load the CUDA driver (libcuda-does-not-exist.so.1)"),
            std::string::npos)
      << error;
}

TEST(CudaDriver, LibraryWithoutTheDriverApiIsAClearError) {
  // libm is on every machine and is no CUDA driver.
  std::string error;
  auto driver = CudaDriver::load(error, "libm.so.6");
  EXPECT_EQ(driver, nullptr);
  EXPECT_NE(error.find("lacks cuInit"), std::string::npos) << error;
}

TEST(CudaDriver, DescribesTheGpusWhenADriverIsPresent) {
  std::string error;
  auto driver = CudaDriver::load(error);
  if (!driver)
    GTEST_SKIP() << "no CUDA driver on this machine: " << error;
  EXPECT_GE(driver->driverVersion(), 11000);
  int count = driver->deviceCount(error);
  ASSERT_GE(count, 0) << error;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceInfo info;
    ASSERT_TRUE(driver->deviceInfo(ordinal, info, error)) << error;
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.multiprocessorCount, 0);
    EXPECT_GT(info.totalMemoryBytes, size_t(1) << 30);
    std::printf("GPU %d: %s, %s, %d SMs, %.1f GiB, driver CUDA %d.%d\n", ordinal, info.name.c_str(),
                info.smName().c_str(), info.multiprocessorCount,
                double(info.totalMemoryBytes) / double(1ull << 30), driver->driverVersion() / 1000,
                driver->driverVersion() % 1000 / 10);
  }
}

} // namespace
