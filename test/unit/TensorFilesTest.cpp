//===- TensorFilesTest.cpp - .npy and ONNX .pb tensor files ---------------===//

#include "lib/io/TensorFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln::io;

namespace {

/// A file in a fresh temporary folder, removed with the test.
class TensorFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-tensors", directory));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }
  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> result(directory);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  llvm::SmallString<128> directory;
};

HostTensor floats(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> values) {
  HostTensor tensor;
  tensor.type = ElementType::F32;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.data.resize(values.size() * 4);
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

std::string message(llvm::Error error) { return llvm::toString(std::move(error)); }

/// An .npy file (format 1.0) with header dictionary `header` and raw `data`.
std::string npy(llvm::StringRef header, llvm::StringRef data = "") {
  std::string text = header.str() + "\n";
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes += char(text.size() & 0xff);
  bytes += char(text.size() >> 8);
  return bytes + text + data.str();
}

TEST_F(TensorFilesTest, ParsesWhatNumPyWrites) {
  // np.save of np.arange(6, dtype=np.float32).reshape(2, 3), as numpy 1.24 writes it: the
  // dictionary padded with spaces to a 118-byte header.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(117 - header.size(), ' ');
  std::string data;
  for (float value : {0.f, 1.f, 2.f, 3.f, 4.f, 5.f})
    data.append(reinterpret_cast<const char *>(&value), 4);
  std::string bytes = npy(header, data);
  ASSERT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00v\x00", 10));
  auto tensor = parseNpy(bytes, "arange.npy");
  ASSERT_TRUE(bool(tensor)) << message(tensor.takeError());
  EXPECT_EQ(tensor->type, ElementType::F32);
  EXPECT_EQ(tensor->shape, (llvm::SmallVector<int64_t>{2, 3}));
  float last;
  std::memcpy(&last, tensor->data.data() + 20, 4);
  EXPECT_EQ(last, 5.f);
}

TEST_F(TensorFilesTest, NpyRoundTripKeepsTypeShapeAndData) {
  HostTensor matrix = floats({2, 2}, {1.5f, -2.f, 3.25f, 0.f});
  ASSERT_FALSE(writeNpy(path("m.npy"), matrix));
  auto back = readTensorFile(path("m.npy"));
  ASSERT_TRUE(bool(back)) << message(back.takeError());
  EXPECT_EQ(back->shape, matrix.shape);
  EXPECT_EQ(back->data, matrix.data);

  HostTensor scalar;
  scalar.type = ElementType::I64;
  scalar.data.resize(8);
  int64_t value = -7;
  std::memcpy(scalar.data.data(), &value, 8);
  ASSERT_FALSE(writeNpy(path("s.npy"), scalar));
  auto scalarBack = readNpy(path("s.npy"));
  ASSERT_TRUE(bool(scalarBack)) << message(scalarBack.takeError());
  EXPECT_EQ(scalarBack->type, ElementType::I64);
  EXPECT_TRUE(scalarBack->shape.empty());
  EXPECT_EQ(scalarBack->data, scalar.data);

  HostTensor vector = floats({3}, {1.f, 2.f, 3.f});
  ASSERT_FALSE(writeNpy(path("v.npy"), vector));
  auto vectorBack = readNpy(path("v.npy"));
  ASSERT_TRUE(bool(vectorBack)) << message(vectorBack.takeError());
  EXPECT_EQ(vectorBack->shape, (llvm::SmallVector<int64_t>{3}));
}

TEST_F(TensorFilesTest, NpyRejectsWhatItCannotRead) {
  EXPECT_NE(message(parseNpy("garbage", "g.npy").takeError()).find("not a .npy file"),
            std::string::npos);
  std::string fortran = npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }");
  EXPECT_NE(message(parseNpy(fortran, "f.npy").takeError()).find("Fortran-ordered"),
            std::string::npos);
  std::string bigEndian = npy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }");
  EXPECT_NE(message(parseNpy(bigEndian, "b.npy").takeError()).find("big-endian"),
            std::string::npos);
  std::string shortData = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "abcd");
  EXPECT_NE(message(parseNpy(shortData, "s.npy").takeError())
                .find("holds 4 bytes of data for 2 elements of f32 (8 bytes)"),
            std::string::npos);
  std::string noShape = npy("{'descr': '<f4', 'fortran_order': False, }");
  EXPECT_NE(message(parseNpy(noShape, "n.npy").takeError()).find("lacks descr"), std::string::npos);
}

TEST_F(TensorFilesTest, ReadsTheOnnxTestData) {
  const char *input = "/usr/share/libonnx-testdata/data/node/test_abs/test_data_set_0/input_0.pb";
  if (!llvm::sys::fs::exists(input))
    GTEST_SKIP() << "no ONNX test data (Debian's libonnx-testdata)";
  auto tensor = readTensorFile(input);
  ASSERT_TRUE(bool(tensor)) << message(tensor.takeError());
  EXPECT_EQ(tensor->name, "x");
  EXPECT_EQ(tensor->type, ElementType::F32);
  EXPECT_EQ(tensor->shape, (llvm::SmallVector<int64_t>{3, 4, 5}));
  EXPECT_EQ(tensor->data.size(), 3u * 4 * 5 * 4);
}

TEST_F(TensorFilesTest, TensorProtoRoundTrip) {
  HostTensor tensor = floats({1, 3}, {0.5f, 0.25f, 8.f});
  tensor.name = "logits";
  ASSERT_FALSE(writeTensorProto(path("t.pb"), tensor));
  auto back = readTensorFile(path("t.pb"));
  ASSERT_TRUE(bool(back)) << message(back.takeError());
  EXPECT_EQ(back->name, "logits");
  EXPECT_EQ(back->shape, tensor.shape);
  EXPECT_EQ(back->data, tensor.data);
}

TEST_F(TensorFilesTest, UnknownExtensionAndMissingFile) {
  EXPECT_NE(message(readTensorFile(path("x.bin")).takeError()).find("unknown tensor file type"),
            std::string::npos);
  EXPECT_NE(message(readTensorFile(path("missing.npy")).takeError()).find("cannot read"),
            std::string::npos);
}

} // namespace
