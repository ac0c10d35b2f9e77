//===- Sm90Template.cpp - Instantiating the Hopper kernel templates -------===//

#include "passes/kernel/Sm90Template.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;

namespace {
/// The text of passes/kernel/templates/Sm90GemmWs.mlir.
constexpr const char kWarpSpecialisedTemplate[] =
#include "passes/kernel/templates/Sm90GemmWs.mlir.inc"
    ;
/// Its epilogues ({STORE_TILE}): passes/kernel/templates/Sm90StoreStaged.mlir and
/// Sm90StoreFragments.mlir.
constexpr const char kStoreStaged[] =
#include "passes/kernel/templates/Sm90StoreStaged.mlir.inc"
    ;
constexpr const char kStoreFragments[] =
#include "passes/kernel/templates/Sm90StoreFragments.mlir.inc"
    ;
/// The registers the producer warpgroup keeps with one CTA an SM (it computes addresses
/// only); the consumers take the rest.
constexpr int64_t kProducerRegisters = 40;
/// Its work item's tile and k-tiles ({ITEM_TILE}, in the producer's and the consumers'
/// loops): passes/kernel/templates/Sm90GemmItem.mlir.
constexpr const char kItemTile[] =
#include "passes/kernel/templates/Sm90GemmItem.mlir.inc"
    ;
/// Its stream-K fix-up ({STREAM_K_FIXUP}): passes/kernel/templates/Sm90StreamKFixup.mlir.
constexpr const char kStreamKFixup[] =
#include "passes/kernel/templates/Sm90StreamKFixup.mlir.inc"
    ;
/// The text of passes/kernel/templates/SplitKReduce.mlir.
constexpr const char kSplitKReduceTemplate[] =
#include "passes/kernel/templates/SplitKReduce.mlir.inc"
    ;
} // namespace

kiln::Sm90AOperand kiln::rowMajorMatrixA(int64_t kTileBytes, int64_t tileM) {
  // TILE_M-row boxes of a k-tile at (k0, m0); rows past M are not stored.
  return {
      /*box=*/"{TILE_M}x{TILE_K}",
      /*boxBytes=*/tileM * kTileBytes,
      /*tilesM=*/R"(    %tileMLess = arith.subi %tileM, %c1 : index
    %mUp = arith.addi %m, %tileMLess : index
    %tilesM = arith.divui %mUp, %tileM : index)",
      /*tileSetup=*/"    %m0 = arith.muli %tileRow, %tileM : index",
      /*loadA=*/
      "          nvgpu.tma.async.load %descA[%k0, %m0], %full[%slot] to %a : !tmA, !bars -> "
      "!tileA",
      /*descMap=*/"%descA : !halfA, !tmA",
      /*rowEnd=*/R"(      %rowsHere = arith.subi %m, %m0 : index
      %rowEnd = arith.minui %rowsHere, %tileM : index)",
      /*rowMap=*/R"(        %grow = arith.addi %m0, %r : index
        %rowOk = arith.constant true)",
  };
}

void kiln::replaceLaunches(kernel::FuncOp function, ModuleOp module, SymbolTable &symbols,
                           function_ref<LogicalResult(kernel::LaunchOp)> replace) {
  std::optional<SymbolTable::UseRange> uses = symbols.getSymbolUses(function, module);
  if (!uses)
    return;
  bool allReplaced = true;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
    if (!launch || failed(replace(launch)))
      allReplaced = false;
  }
  if (allReplaced)
    function.erase();
}

std::string kiln::replaceAll(std::string text, StringRef from, StringRef to) {
  for (size_t at = text.find(from.str()); at != std::string::npos;
       at = text.find(from.str(), at + to.size()))
    text.replace(at, from.size(), to.str());
  return text;
}

std::string kiln::substitutePlaceholders(std::string text,
                                         ArrayRef<std::pair<StringRef, std::string>> values) {
  for (const auto &[key, value] : values)
    text = replaceAll(std::move(text), ("{" + key + "}").str(), value);
  return text;
}

std::string kiln::elementTypeName(Type type) {
  if (type.isInteger(8))
    return "i8";
  return type.isF32() ? "f32" : type.isF16() ? "f16" : "bf16";
}

namespace {
/// The wgmma descriptors of a stage's A rows and B tile ({DESCRIPTORS}): upstream's op,
/// which takes 128B-swizzled tiles only.
constexpr const char kDescriptors128[] =
    R"(          %descBTile = builtin.unrealized_conversion_cast %descB : !tmB to !tmBTile
          %dA = nvgpu.warpgroup.generate.descriptor %a, {A_DESC_MAP} -> !wdA
          %dB = nvgpu.warpgroup.generate.descriptor %b, %descBTile : !tileB, !tmBTile -> !wdB)";
/// For 64B-swizzled tiles, built here (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the
/// shared address / 16, 16-29 the leading byte offset / 16 (unused by swizzled K-major
/// operands: 1), 32-45 the stride byte offset / 16 (8 rows of 64 bytes: 32), 62-63 the
/// layout (2: 64B swizzle); base offset 0 (stages are 512-byte aligned).
constexpr const char kDescriptors64[] = R"(          %dAAt = arith.addi %addr, %offAw : index
          %dBAt = arith.addi %addr, %offB : index
          %dAWide = arith.index_castui %dAAt : index to i64
          %dBWide = arith.index_castui %dBAt : index to i64
          %dAddressBits = arith.constant 262143 : i64
          %dFour = arith.constant 4 : i64
          %dAAddress = arith.andi %dAWide, %dAddressBits : i64
          %dBAddress = arith.andi %dBWide, %dAddressBits : i64
          %dAStart = arith.shrui %dAAddress, %dFour : i64
          %dBStart = arith.shrui %dBAddress, %dFour : i64
          %dLayout = arith.constant -9223371899415756800 : i64
          %dABits = arith.ori %dAStart, %dLayout : i64
          %dBBits = arith.ori %dBStart, %dLayout : i64
          %dA = builtin.unrealized_conversion_cast %dABits : i64 to !wdA
          %dB = builtin.unrealized_conversion_cast %dBBits : i64 to !wdB)";

/// The 16-byte chunk of 8 half-precision elements that starts at element %<prefix>Shift of
/// the aligned word %<prefix>Lo (vector<8xT>) and runs into the next, %<prefix>Hi: the five
/// 32-bit words from word %Shift / 2 on, then each output word from two of them where the
/// chunk starts at an odd element. Defines %<prefix>Values (and what it computes on the way,
/// which CSE shares between the chunks of one %Shift once unrolled); each line starts with
/// `indent`.
std::string funnelShift(StringRef prefix, StringRef indent) {
  std::string lines = R"(%PQ = arith.divui %PShift, %c2 : index
%PQ1 = arith.cmpi eq, %PQ, %c1 : index
%PQ2 = arith.cmpi eq, %PQ, %c2 : index
%PQ3 = arith.cmpi eq, %PQ, %c3 : index
%POddShift = arith.remui %PShift, %c2 : index
%POdd = arith.cmpi ne, %POddShift, %c0 : index
%PSixteen = arith.constant dense<16> : vector<4xi32>
%PLoW = vector.bitcast %PLo : vector<8x{IN}> to vector<4xi32>
%PHiW = vector.bitcast %PHi : vector<8x{IN}> to vector<4xi32>
%PAll = vector.shuffle %PLoW, %PHiW [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xi32>, vector<4xi32>
%PS0 = vector.shuffle %PAll, %PAll [0, 1, 2, 3, 4] : vector<8xi32>, vector<8xi32>
%PS1 = vector.shuffle %PAll, %PAll [1, 2, 3, 4, 5] : vector<8xi32>, vector<8xi32>
%PS2 = vector.shuffle %PAll, %PAll [2, 3, 4, 5, 6] : vector<8xi32>, vector<8xi32>
%PS3 = vector.shuffle %PAll, %PAll [3, 4, 5, 6, 7] : vector<8xi32>, vector<8xi32>
%PX01 = arith.select %PQ1, %PS1, %PS0 : vector<5xi32>
%PX012 = arith.select %PQ2, %PS2, %PX01 : vector<5xi32>
%PX = arith.select %PQ3, %PS3, %PX012 : vector<5xi32>
%PXLo = vector.shuffle %PX, %PX [0, 1, 2, 3] : vector<5xi32>, vector<5xi32>
%PXHi = vector.shuffle %PX, %PX [1, 2, 3, 4] : vector<5xi32>, vector<5xi32>
%PDown = arith.shrui %PXLo, %PSixteen : vector<4xi32>
%PUp = arith.shli %PXHi, %PSixteen : vector<4xi32>
%PJoined = arith.ori %PDown, %PUp : vector<4xi32>
%PWords = arith.select %POdd, %PJoined, %PXLo : vector<4xi32>
%PValues = vector.bitcast %PWords : vector<4xi32> to vector<8x{IN}>
)";
  std::string text;
  for (StringRef line : llvm::split(StringRef(lines).rtrim('\n'), '\n')) {
    std::string expanded = line.str();
    for (size_t at = expanded.find("%P"); at != std::string::npos;
         at = expanded.find("%P", at + prefix.size() + 1))
      expanded.replace(at, 2, ("%" + prefix).str());
    text += indent.str() + expanded + "\n";
  }
  return text;
}

/// The producer threads' loads of a box of `rows` rows x 64 half-precision columns (128
/// bytes a row) of a row-major matrix whose rows are `pitch` elements apart, not a
/// multiple of 8 (which TMA cannot stride): rows `row0`.. of those below `rowsBound`,
/// columns `col0`.. of those below `colsBound`, of the matrix starting at element
/// `matrixBase` of `flat` (a memref<?xT> of the whole operand, 16-byte aligned), into the
/// 128B-swizzled layout TMA would write at byte `destination` of %dyn (chunk c of row r at
/// c ^ r % 8), zeros outside the matrix. Each of the 128 threads (%producerTid) takes
/// 16-byte chunks: the aligned 16-byte word holding the chunk's first element and, when
/// the chunk's elements inside the matrix run on into the next, that one, joined by a
/// funnel shift of 32-bit words (one element is half a word). Two snippets: `load` issues
/// every chunk's loads (into %<prefix>Los and %<prefix>His), `store` writes the box; the
/// producer puts its stage wait between them. For a GEMM of one k-tile (K <= TILE_K), where
/// there is no next k-tile to overlap: the loads go straight to registers, without the raw
/// buffers of threadLoadedOperand. SSA names start with `prefix`.
struct ThreadLoadedBox {
  std::string load, store;
};
ThreadLoadedBox threadLoadedBox(StringRef prefix, StringRef flat, int64_t rows,
                                StringRef destination, StringRef matrixBase, StringRef row0,
                                StringRef rowsBound, StringRef col0, StringRef colsBound,
                                int64_t pitch) {
  // The chunk's place and its first element's (in both snippets: once unrolled, CSE keeps
  // one of each).
  std::string place = llvm::formatv(R"(              %{0}Step = arith.muli %{0}I, %c128 : index
              %{0}Chunk = arith.addi %{0}Step, %producerTid : index
              %{0}R = arith.divui %{0}Chunk, %c8 : index
              %{0}C = arith.remui %{0}Chunk, %c8 : index
              %{0}Row = arith.addi {1}, %{0}R : index
              %{0}C8 = arith.muli %{0}C, %c8 : index
              %{0}Col = arith.addi {2}, %{0}C8 : index
              %{0}RowOk = arith.cmpi ult, %{0}Row, {3} : index
              %{0}ColOk = arith.cmpi ult, %{0}Col, {4} : index
              %{0}Ok = arith.andi %{0}RowOk, %{0}ColOk : i1
              %{0}RowAt = arith.muli %{0}Row, %{0}Pitch : index
              %{0}InMatrix = arith.addi %{0}RowAt, %{0}Col : index
              %{0}At = arith.addi {5}, %{0}InMatrix : index
              %{0}Safe = arith.select %{0}Ok, %{0}At, %c0 : index
              %{0}W0 = arith.divui %{0}Safe, %c8 : index
              %{0}Shift = arith.remui %{0}Safe, %c8 : index
)",
                                    prefix, row0, col0, rowsBound, colsBound, matrixBase)
                          .str();
  int64_t chunks = rows * 8 / 128;
  ThreadLoadedBox box;
  box.load = llvm::formatv(R"(            %{0}Chunks = arith.constant {1} : index
            %{0}Pitch = arith.constant {2} : index
            %{0}NoWords = ub.poison : vector<{1}x8x{{IN}>
            %{0}Los, %{0}His = scf.for %{0}I = %c0 to %{0}Chunks step %c1
                iter_args(%{0}LoAcc = %{0}NoWords, %{0}HiAcc = %{0}NoWords)
                -> (vector<{1}x8x{{IN}>, vector<{1}x8x{{IN}>) {{
{3}              // The chunk's elements inside the matrix (%Valid) reach into the next
              // word when %Shift + %Valid > 8.
              %{0}Left = arith.subi {4}, %{0}Col : index
              %{0}Valid = arith.minui %{0}Left, %c8 : index
              %{0}Reach = arith.addi %{0}Shift, %{0}Valid : index
              %{0}Straddles = arith.cmpi ugt, %{0}Reach, %c8 : index
              %{0}Next = arith.andi %{0}Straddles, %{0}Ok : i1
              %{0}W1Step = arith.select %{0}Next, %c1, %c0 : index
              %{0}W1 = arith.addi %{0}W0, %{0}W1Step : index
              %{0}E0 = arith.muli %{0}W0, %c8 : index
              %{0}E1 = arith.muli %{0}W1, %c8 : index
              %{0}Lo = vector.load {5}[%{0}E0] {{alignment = 16} : memref<?x{{IN}>, vector<8x{{IN}>
              %{0}Hi = vector.load {5}[%{0}E1] {{alignment = 16} : memref<?x{{IN}>, vector<8x{{IN}>
              %{0}LoNext = vector.insert %{0}Lo, %{0}LoAcc[%{0}I] : vector<8x{{IN}> into vector<{1}x8x{{IN}>
              %{0}HiNext = vector.insert %{0}Hi, %{0}HiAcc[%{0}I] : vector<8x{{IN}> into vector<{1}x8x{{IN}>
              scf.yield %{0}LoNext, %{0}HiNext : vector<{1}x8x{{IN}>, vector<{1}x8x{{IN}>
            } {{unroll})",
                           prefix, chunks, pitch, place, colsBound, flat)
                 .str();
  box.store =
      llvm::formatv(
          R"(            %{0}Box = memref.view %dyn[{1}][] : !smem to memref<{2}x64x{{IN}, #gpu.address_space<workgroup>>
            scf.for %{0}I = %c0 to %{0}Chunks step %c1 {{
{3}              %{0}Lo = vector.extract %{0}Los[%{0}I] : vector<8x{{IN}> from vector<{4}x8x{{IN}>
              %{0}Hi = vector.extract %{0}His[%{0}I] : vector<8x{{IN}> from vector<{4}x8x{{IN}>
{6}              // Zeros past the matrix's columns (the next row's elements) and rows.
              %{0}Iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
              %{0}ColV = vector.broadcast %{0}Col : index to vector<8xindex>
              %{0}Cols = arith.addi %{0}ColV, %{0}Iota : vector<8xindex>
              %{0}BoundV = vector.broadcast {5} : index to vector<8xindex>
              %{0}InCols = arith.cmpi ult, %{0}Cols, %{0}BoundV : vector<8xindex>
              %{0}RowOkV = vector.broadcast %{0}RowOk : i1 to vector<8xi1>
              %{0}Keep = arith.andi %{0}InCols, %{0}RowOkV : vector<8xi1>
              %{0}Zeros = arith.constant dense<0.0> : vector<8x{{IN}>
              %{0}Stored = arith.select %{0}Keep, %{0}Values, %{0}Zeros : vector<8xi1>, vector<8x{{IN}>
              %{0}R8 = arith.remui %{0}R, %c8 : index
              %{0}Swizzled = arith.xori %{0}C, %{0}R8 : index
              %{0}SCol = arith.muli %{0}Swizzled, %c8 : index
              vector.store %{0}Stored, %{0}Box[%{0}R, %{0}SCol] {{alignment = 16}
                : memref<{2}x64x{{IN}, #gpu.address_space<workgroup>>, vector<8x{{IN}>
            } {{unroll})",
          prefix, destination, rows, place, chunks, colsBound,
          funnelShift(prefix, "              "))
          .str();
  return box;
}

/// The producer threads' loads of one operand of a stage, whose rows of `pitch` elements
/// (not a multiple of 8) TMA cannot stride: `units` rows of 64 half-precision elements (128
/// bytes), unit u the u-th row of the stage's view of the operand (A: row %m0 + u of its
/// 128; B: k-row u % 64 of box u / 64, columns %n0 + 64 (u / 64)..), each thread taking
/// units %producerTid, %producerTid + 128, ... Two steps:
///  - copy(k0, buffer): for the k-tile starting at `k0`, cp.async of the nine aligned
///    16-byte words that hold each unit's 64 elements into a raw row of 72 elements of raw
///    buffer `buffer` (zeros for words past the operand or of a row outside it), no
///    registers held: the next k-tile's copies are in flight while this one is stored;
///  - store(): for the k-tile at %ek0, from raw buffer %rawNow, the unit's eight 16-byte
///    chunks from pairs of raw words joined by a funnel shift, zeros past the operand's
///    columns (the next row's elements), into the 128B-swizzled layout TMA would write
///    (chunk c of row u at c ^ u % 8) at byte `destination` of %dyn.
/// The thread that copies a unit stores it: cp.async.wait_group orders the two.
/// `unitSetup(names, k0)` defines %<names>Row and %<names>Col0 (the unit's first element)
/// from %<names>U; `raw` names the memref<2 x units x 72 x T> raw buffers. SSA names start
/// with `prefix` (its C and S for the copy's and the store's own).
struct ThreadLoadedOperand {
  std::string prefix, flat, elements, raw, destination, matrixBase, rowsBound, colsBound;
  int64_t units, pitch, rawOffset;
  std::function<std::string(StringRef, StringRef)> unitSetup;

  /// Constants for the kernel's start.
  std::string constants() const {
    return llvm::formatv("    %{0}Units = arith.constant {1} : index\n"
                         "    %{0}Pitch = arith.constant {2} : index\n"
                         "    %{0}RawAt = arith.constant {3} : index\n",
                         prefix, units, pitch, rawOffset)
        .str();
  }

  /// The raw buffers' view (where %base is known).
  std::string view() const {
    return llvm::formatv("            %{0}RawOff = arith.addi %base, %{0}RawAt : index\n"
                         "            {2} = memref.view %dyn[%{0}RawOff][] : !smem to "
                         "memref<2x{1}x72x{{IN}, #gpu.address_space<workgroup>>\n",
                         prefix, units, raw)
        .str();
  }

  std::string copy(StringRef k0, StringRef buffer) const {
    std::string names = prefix + "C";
    return llvm::formatv(R"(            scf.for %{0}V = %c0 to %{6}Units step %c128 {{
{1}              %{0}W0 = arith.divui %{0}At, %c8 : index
              scf.for %{0}J = %c0 to %c9 step %c1 {{
                %{0}W = arith.addi %{0}W0, %{0}J : index
                %{0}Src = arith.muli %{0}W, %c8 : index
                %{0}Inside = arith.cmpi ult, %{0}Src, {2} : index
                %{0}Live = arith.andi %{0}Inside, %{0}RowOk : i1
                %{0}Left = arith.subi {2}, %{0}Src : index
                %{0}Fill = arith.minui %{0}Left, %c8 : index
                %{0}Count = arith.select %{0}Live, %{0}Fill, %c0 : index
                %{0}SrcAt = arith.select %{0}Live, %{0}Src, %c0 : index
                %{0}J8 = arith.muli %{0}J, %c8 : index
                %{0}Tok = nvgpu.device_async_copy {3}[%{0}SrcAt], {4}[{7}, %{0}U, %{0}J8], 8, %{0}Count {{bypassL1}
                  : memref<?x{{IN}> to memref<2x{5}x72x{{IN}, #gpu.address_space<workgroup>>
              } {{unroll}
              }
            } {{unroll}
)",
                         names, place(names, k0), elements, flat, raw, units, prefix, buffer)
        .str();
  }

  std::string store() const {
    std::string names = prefix + "S";
    return llvm::formatv(
               R"(            %{0}Stage = memref.view %dyn[{1}][] : !smem to memref<{2}x64x{{IN}, #gpu.address_space<workgroup>>
            scf.for %{0}V = %c0 to %{7}Units step %c128 {{
{3}              %{0}Shift = arith.remui %{0}At, %c8 : index
              %{0}Iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
              %{0}BoundV = vector.broadcast {4} : index to vector<8xindex>
              %{0}RowOkV = vector.broadcast %{0}RowOk : i1 to vector<8xi1>
              %{0}Zeros = arith.constant dense<0.0> : vector<8x{{IN}>
              %{0}R8 = arith.remui %{0}U, %c8 : index
              scf.for %{0}C = %c0 to %c8 step %c1 {{
                %{0}C8 = arith.muli %{0}C, %c8 : index
                %{0}C9 = arith.addi %{0}C8, %c8 : index
                %{0}Lo = vector.load {5}[%rawNow, %{0}U, %{0}C8] {{alignment = 16}
                  : memref<2x{2}x72x{{IN}, #gpu.address_space<workgroup>>, vector<8x{{IN}>
                %{0}Hi = vector.load {5}[%rawNow, %{0}U, %{0}C9] {{alignment = 16}
                  : memref<2x{2}x72x{{IN}, #gpu.address_space<workgroup>>, vector<8x{{IN}>
{6}                // Zeros past the operand's columns (the next row's elements) and rows.
                %{0}Col = arith.addi %{0}Col0, %{0}C8 : index
                %{0}ColV = vector.broadcast %{0}Col : index to vector<8xindex>
                %{0}Cols = arith.addi %{0}ColV, %{0}Iota : vector<8xindex>
                %{0}InCols = arith.cmpi ult, %{0}Cols, %{0}BoundV : vector<8xindex>
                %{0}Keep = arith.andi %{0}InCols, %{0}RowOkV : vector<8xi1>
                %{0}Stored = arith.select %{0}Keep, %{0}Values, %{0}Zeros : vector<8xi1>, vector<8x{{IN}>
                %{0}Swizzled = arith.xori %{0}C, %{0}R8 : index
                %{0}SCol = arith.muli %{0}Swizzled, %c8 : index
                vector.store %{0}Stored, %{0}Stage[%{0}U, %{0}SCol] {{alignment = 16}
                  : memref<{2}x64x{{IN}, #gpu.address_space<workgroup>>, vector<8x{{IN}>
              } {{unroll}
              }
            } {{unroll}
)",
               names, destination, units, place(names, "%ek0"), colsBound, raw,
               funnelShift(names, "                "), prefix)
        .str();
  }

private:
  /// A unit's place (inside the loop over %<names>V): its first element %<names>At and
  /// whether its row is inside the operand, opening the scf.if of the units that exist.
  std::string place(StringRef names, StringRef k0) const {
    return llvm::formatv(R"(              %{0}U = arith.addi %{0}V, %producerTid : index
              %{0}Mine = arith.cmpi ult, %{0}U, %{4}Units : index
              scf.if %{0}Mine {{
{1}
              %{0}RowOk = arith.cmpi ult, %{0}Row, {2} : index
              %{0}RowAt = arith.muli %{0}Row, %{4}Pitch : index
              %{0}InMatrix = arith.addi %{0}RowAt, %{0}Col0 : index
              %{0}At = arith.addi {3}, %{0}InMatrix : index
)",
                         names, unitSetup(names, k0), rowsBound, matrixBase, prefix)
        .str();
  }
};

/// The index in `epilogue`'s inputs of its one input of C's shape, if it has one.
std::optional<unsigned> residualInput(const kiln::Sm90Epilogue &epilogue) {
  std::optional<unsigned> found;
  for (auto [index, input] : llvm::enumerate(epilogue.inputs)) {
    if (input.kind != kiln::Sm90EpilogueInput::Kind::Full)
      continue;
    if (found)
      return std::nullopt;
    found = index;
  }
  return found;
}

/// How the residual tile of `config` lies in shared memory, for elements of
/// `elementBytes`: as one box of its 128 x TILE_N elements; or, under the fragment
/// epilogue (Sm90GemmConfig::fragmentEpilogue, Sm90StoreFragments.mlir), in boxes of up to
/// 128 bytes of a row, each row padded by 16 bytes (the TMA box reads 16 bytes of the
/// columns past it), side by side: the 8 rows a warp's fragment reads at once then fall
/// on different banks, and a thread's elements lie at constant offsets from one address.
struct ResidualBoxes {
  int64_t boxes = 1;
  int64_t columns = 0;       // the tile's columns a box holds
  int64_t paddedColumns = 0; // a box's row, in elements
  int64_t boxBytes = 0;
  int64_t bytes() const { return boxes * boxBytes; }
};

ResidualBoxes residualBoxes(const kiln::Sm90GemmConfig &config, int64_t elementBytes) {
  int64_t rowBytes = config.tileN * elementBytes;
  if (!config.fragmentEpilogue())
    return {1, config.tileN, config.tileN, config.tileM * rowBytes};
  int64_t boxRowBytes = std::min<int64_t>(rowBytes, 128);
  return {rowBytes / boxRowBytes, boxRowBytes / elementBytes, (boxRowBytes + 16) / elementBytes,
          config.tileM * (boxRowBytes + 16)};
}

/// The residual tile's placeholders of the warp-specialised template ({RESIDUAL_*}, see
/// its header) for a residual of `element`s (null: none) under `config`, in a ring of
/// config.residualSlots() tiles laid out as residualBoxes says: the CTA's tile j
/// (j = (item - pid) / grid) goes to slot j % slots as its fill j / slots. The producer
/// loads it once the consumers released the slot's previous fill (completion
/// j / slots - 1 of %rEmpty[slot]); the consumers wait for completion j / slots of
/// %rFull[slot]. The staged epilogue reads it as %rTile (128 x TILE_N); the fragment
/// epilogue at %rAt ({RESIDUAL_AT}) of %rFlat, the slot's elements, for the tile's %r and
/// the column %jCols + %fragCol.
std::vector<std::pair<StringRef, std::string>>
residualPlaceholders(Type element, const kiln::Sm90GemmConfig &config, int64_t resultBytes) {
  if (!element)
    return {{"RESIDUAL_TYPES", ""}, {"RESIDUAL_PARAMETER", ""}, {"RESIDUAL_BARRIERS", ""},
            {"RESIDUAL_INIT", ""},  {"RESIDUAL_PREFETCH", ""},  {"RESIDUAL_LOAD", ""},
            {"RESIDUAL_WAIT", ""},  {"RESIDUAL_RELEASE", ""},   {"RESIDUAL_AT", ""}};
  std::string type = element.isInteger(8) ? "i8" : kiln::elementTypeName(element);
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  ResidualBoxes layout = residualBoxes(config, elementBytes);
  int64_t bytes = layout.bytes();
  std::string tile = llvm::formatv("{0}x{1}x{2}", config.tileM, layout.paddedColumns, type).str();
  // Past the ring and the staging (which reuses the ring unless the grid is persistent).
  std::string base = std::to_string(config.ringAndStagingBytes(resultBytes));
  std::string slots = std::to_string(config.residualSlots());
  // The CTA's tile, its slot and fill, and the slot's offset (names prefixed by `p`).
  auto slotOf = [&](StringRef p) {
    return llvm::formatv(R"(        %{0}BaseOffset = arith.constant {1} : index
        %{0}Slots = arith.constant {2} : index
        %{0}TileBytes = arith.constant {3} : index
        %{0}Since = arith.subi %item, %pid : index
        %{0}SinceI = arith.index_castui %{0}Since : index to i32
        %{0}GridI = arith.index_castui %grid : index to i32
        %{0}SlotsI = arith.index_castui %{0}Slots : index to i32
        %{0}TileIndex = arith.divui %{0}SinceI, %{0}GridI : i32
        %{0}SlotI = arith.remui %{0}TileIndex, %{0}SlotsI : i32
        %{0}FillI = arith.divui %{0}TileIndex, %{0}SlotsI : i32
        %{0}Slot = arith.index_castui %{0}SlotI : i32 to index
        %{0}Fill = arith.index_castui %{0}FillI : i32 to index
        %{0}SlotOffset = arith.muli %{0}Slot, %{0}TileBytes : index
        %{0}Offset = arith.addi %{0}BaseOffset, %{0}SlotOffset : index
        %{0}Base = arith.addi %base, %{0}Offset : index)",
                         p, base, slots, bytes)
        .str();
  };
  // Box b holds the tile's columns b * columns.. (and the padding's past them).
  std::string boxLoads;
  for (int64_t box = 0; box < layout.boxes; ++box)
    boxLoads += llvm::formatv(R"(
          %rBoxOffset{0} = arith.constant {1} : index
          %rBoxColumns{0} = arith.constant {2} : index
          %rBoxBase{0} = arith.addi %rBase, %rBoxOffset{0} : index
          %rView{0} = memref.view %dyn[%rBoxBase{0}][] : !smem to !tileR
          %rColumn{0} = arith.addi %n0, %rBoxColumns{0} : index
          nvgpu.tma.async.load %descR[%rColumn{0}, %rRow0], %rFull[%rSlot] to %rView{0} : !tmR, !barR -> !tileR)",
                              box, box * layout.boxBytes, box * layout.columns)
                    .str();
  std::string residualAt =
      llvm::formatv(R"(            %rBoxColumns = arith.constant {0} : index
            %rPadded = arith.constant {1} : index
            %rBoxElements = arith.constant {2} : index
            %rBox = arith.divui %jCols, %rBoxColumns : index
            %rInBox = arith.remui %jCols, %rBoxColumns : index
            %rBoxStart = arith.muli %rBox, %rBoxElements : index
            %rRowStart = arith.muli %r, %rPadded : index
            %rRowAt = arith.addi %rBoxStart, %rRowStart : index
            %rColumnAt = arith.addi %rInBox, %fragCol : index
            %rAt = arith.addi %rRowAt, %rColumnAt : index)",
                    layout.columns, layout.paddedColumns, layout.boxBytes / elementBytes)
          .str();
  return {
      {"RESIDUAL_TYPES",
       llvm::formatv("!tmR = !nvgpu.tensormap.descriptor<tensor = memref<{0}, 3>, swizzle = none, "
                     "l2promo = l2promo_256b, oob = zero, interleave = none>\n"
                     "!barR = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, "
                     "num_barriers = {1}>\n"
                     "!tileR = memref<{0}, #gpu.address_space<workgroup>>\n"
                     "!tileRFlat = memref<1x{2}x{3}, #gpu.address_space<workgroup>>",
                     tile, slots, bytes / elementBytes, type)
           .str()},
      {"RESIDUAL_PARAMETER", ", %descR: !tmR"},
      {"RESIDUAL_BARRIERS", "    %rFull = nvgpu.mbarrier.create -> !barR\n"
                            "    %rEmpty = nvgpu.mbarrier.create -> !barR"},
      {"RESIDUAL_INIT", llvm::formatv(R"(      %rSlotCount = arith.constant {0} : index
      scf.for %rs = %c0 to %rSlotCount step %c1 {{
        nvgpu.mbarrier.init %rFull[%rs], %c1 : !barR
        nvgpu.mbarrier.init %rEmpty[%rs], %emptyArrivals : !barR
      })",
                                      slots)
                            .str()},
      {"RESIDUAL_PREFETCH", "        nvgpu.tma.prefetch.descriptor %descR : !tmR"},
      {"RESIDUAL_LOAD",
       "          // The tile's residual: rows TILE_M tileRow.., columns n0.. of C's shape.\n" +
           slotOf("r") + R"(
          %rAgain = arith.cmpi uge, %rFill, %c1 : index
          scf.if %rAgain {
            %rReleased = arith.subi %rFill, %c1 : index
            %rReleasedBit = arith.andi %rReleased, %c1 : index
            %rEmptyPhase = arith.cmpi ne, %rReleasedBit, %c0 : index
            nvgpu.mbarrier.try_wait.parity %rEmpty[%rSlot], %rEmptyPhase, %ticks : !barR
          }
          %rBytes = arith.constant )" +
           std::to_string(bytes) + R"( : index
          nvgpu.mbarrier.arrive.expect_tx %rFull[%rSlot], %rBytes : !barR
          %rRow0 = arith.muli %tileRow, %tileM : index)" +
           boxLoads},
      {"RESIDUAL_WAIT", slotOf("r") + R"(
        %rBit = arith.andi %rFill, %c1 : index
        %rFullPhase = arith.cmpi ne, %rBit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %rFull[%rSlot], %rFullPhase, %ticks : !barR
        %rTile = memref.view %dyn[%rBase][] : !smem to !tileR
        %rFlat = memref.view %dyn[%rBase][] : !smem to !tileRFlat)"},
      {"RESIDUAL_RELEASE",
       "        %rDone = nvgpu.mbarrier.arrive %rEmpty[%rSlot] : !barR -> !nvgpu.mbarrier.token"},
      {"RESIDUAL_AT", residualAt}};
}

/// The resident B's placeholders of the warp-specialised template ({B_RESIDENT_*},
/// {STAGE_B_BOXES}, {B_INDEX}, {STAGE_BYTES}; see its header) under `config`, whose
/// stages bring `aBoxBytes` of A: with B resident, the producer loads all of B's k-tiles
/// once, on %bReady, which the consumers wait for once, before their first tile.
std::vector<std::pair<StringRef, std::string>>
residentBPlaceholders(const kiln::Sm90GemmConfig &config, int64_t aBoxBytes) {
  int64_t bStageBytes = config.bStageBytes();
  if (config.residentKTiles == 0)
    return {{"B_RESIDENT_TYPES", ""}, {"B_RESIDENT_BARRIER", ""},
            {"B_RESIDENT_INIT", ""},  {"B_RESIDENT_LOAD", ""},
            {"B_RESIDENT_WAIT", ""},  {"STAGE_B_BOXES", "{B_BOXES}"},
            {"B_INDEX", "%slot"},     {"STAGE_BYTES", std::to_string(aBoxBytes + bStageBytes)}};
  std::string load =
      llvm::formatv(R"(        // B, all of its k-tiles, once: every tile of this CTA multiplies it.
        %bAllBytes = arith.constant {0} : index
        nvgpu.mbarrier.arrive.expect_tx %bReady[%c0], %bAllBytes : !barB
        %bKTiles = arith.constant {1} : index
        %bRegion = arith.addi %base, %bBase : index
        scf.for %bk = %c0 to %bKTiles step %c1 {{
          %k0 = arith.muli %bk, %tileK : index
          %bkOff = arith.muli %bk, %bStageBytes : index
          %bkAt = arith.addi %bRegion, %bkOff : index
          scf.for %j = %c0 to %bBoxes step %c1 {{
            %jOff = arith.muli %j, %bBoxBytes : index
            %bjAt = arith.addi %bkAt, %jOff : index
            %nj = arith.muli %j, %c64 : index
            %bj = memref.view %dyn[%bjAt][] : !smem to !boxB
            nvgpu.tma.async.load %descB[{{B_COORDINATES}], %bReady[%c0] to %bj : !tmB, !barB -> !boxB
          }
        })",
                    config.residentKTiles * bStageBytes, config.residentKTiles)
          .str();
  return {{"B_RESIDENT_TYPES", "!barB = !nvgpu.mbarrier.group<memorySpace = "
                               "#gpu.address_space<workgroup>, num_barriers = 1>"},
          {"B_RESIDENT_BARRIER", "    %bReady = nvgpu.mbarrier.create -> !barB"},
          {"B_RESIDENT_INIT", "      nvgpu.mbarrier.init %bReady[%c0], %c1 : !barB"},
          {"B_RESIDENT_LOAD", load},
          {"B_RESIDENT_WAIT",
           "      // B has landed (the producer's first loads), for every tile.\n"
           "      %bReadyPhase = arith.constant false\n"
           "      nvgpu.mbarrier.try_wait.parity %bReady[%c0], %bReadyPhase, %ticks : !barB"},
          {"STAGE_B_BOXES", "0"},
          {"B_INDEX", "%kt"},
          {"STAGE_BYTES", std::to_string(aBoxBytes)}};
}

/// The accumulator and k-tile placeholders of the warp-specialised template ({MMA},
/// {MMA_TYPES}, {ACC}, {ACC_INIT}, {ACC_FINISH}, {ACC_F32}) for operands `operand` and a
/// `tileN`-wide B that is MN-major (row-major K x N) or K-major (stored N x K): the wgmma
/// of one k-tile (128 bytes of K) from the descriptors %dA, %dB and the accumulators
/// %accIn into %accOut, and how the accumulators start and become the f32 !acc the
/// epilogue stores (or, for the fragment epilogue, the vector `valuesName` of a
/// thread's sums).
std::vector<std::pair<StringRef, std::string>>
accumulatorPlaceholders(Type operand, int64_t tileN, bool kMajorB, bool biasedSums, int64_t lanes,
                        int64_t kTileBytes, bool fragments, int64_t slices, StringRef valuesName) {
  const std::string floatInit = "        %init = nvgpu.warpgroup.mma.init.accumulator -> !acc";
  // MN-major B: upstream's op, whose lowering walks the descriptors of an MN-major B
  // (transposeB; leading byte offset 8192: one 64-column box to the next), and issues a
  // wgmma for each 64-row slice of the accumulators.
  if (!kMajorB) {
    // The fragment epilogue reads the accumulators where they lie: !acc's LLVM form is a
    // struct of a struct of TILE_N / 2 values for each slice (convert-nvgpu-to-nvvm).
    std::string types, finish;
    if (fragments) {
      std::string fragment = "!llvm.struct<(", accumulator = "!llvm.struct<(", values;
      for (int64_t i = 0; i < tileN / 2; ++i)
        fragment += i ? ", f32" : "f32";
      for (int64_t s = 0; s < slices; ++s)
        accumulator += s ? ", !mmaFragment" : "!mmaFragment";
      types = "!mmaFragment = " + fragment + ")>\n!mmaAccumulator = " + accumulator + ")>";
      finish = "        %accStruct = builtin.unrealized_conversion_cast %res : !acc to "
               "!mmaAccumulator\n";
      for (int64_t s = 0; s < slices; ++s) {
        finish += llvm::formatv("        %accS{0} = llvm.extractvalue %accStruct[{0}] : "
                                "!mmaAccumulator\n",
                                s)
                      .str();
        for (int64_t i = 0; i < tileN / 2; ++i) {
          int64_t value = s * tileN / 2 + i;
          finish += llvm::formatv("        %accV{0} = llvm.extractvalue %accS{1}[{2}] : "
                                  "!mmaFragment\n",
                                  value, s, i)
                        .str();
          values += llvm::formatv("{0}%accV{1}", value ? ", " : "", value).str();
        }
      }
      finish += llvm::formatv("        {0} = vector.from_elements {1} : vector<{2}xf32>",
                              valuesName, values, slices * tileN / 2)
                    .str();
    }
    return {{"MMA", "          %accOut = nvgpu.warpgroup.mma %dA, %dB, %accIn {transposeB}\n"
                    "            : !wdA, !wdB, !acc -> !acc"},
            {"MMA_TYPES", types},
            {"ACC", "!acc"},
            {"ACC_INIT", floatInit},
            {"ACC_FINISH", finish},
            {"ACC_F32", "%res"},
            {"STAGED", "%v"},
            {"UNBIAS", ""}};
  }
  // K-major B: upstream's op steps B's descriptor as MN-major, and its verifier wants tf32
  // element types, whose width (19 bits) its descriptor arithmetic then takes for 2 bytes
  // (and it has no i32 accumulators). So the wgmma are NVVM's, on the accumulators' LLVM
  // form (a struct of one struct of TILE_N / 2 values a thread, as convert-nvgpu-to-nvvm
  // lowers !acc; the casts fold away). Both operands are K-major and 128B-swizzled: each
  // wgmma's K (32 bytes: 32 i8, 16 16-bit elements or 8 tf32) lies 32 bytes further along
  // the rows, 2 in the descriptors' 16-byte address units.
  bool int8 = operand.isInteger(8);
  bool tf32 = operand.isF32();
  int64_t elementBytes = int8 ? 1 : tf32 ? 4 : 2;
  int64_t stepK = 32 / elementBytes;
  std::string type = int8 ? "s8" : tf32 ? "tf32" : kiln::elementTypeName(operand);
  std::string accumulator = int8 ? "i32" : "f32";
  auto structOf = [&](StringRef member) {
    std::string members;
    for (int64_t i = 0; i < tileN / 2; ++i)
      members += (i ? ", " : "") + member.str();
    return "!llvm.struct<(" + members + ")>";
  };
  std::string aliases = "!mmaFragment = " + structOf(accumulator) +
                        "\n!mmaAccumulator = !llvm.struct<(!mmaFragment)>";
  // i8: the loop carries the i32 accumulators themselves (upstream's !acc holds floats
  // only), from zero.
  std::string text =
      int8
          ? ""
          : R"(          %mmaIn = builtin.unrealized_conversion_cast %accIn : !acc to !mmaAccumulator
)";
  text += llvm::formatv(R"(          %mmaA0 = builtin.unrealized_conversion_cast %dA : !wdA to i64
          %mmaB0 = builtin.unrealized_conversion_cast %dB : !wdB to i64
          %mmaC0 = llvm.extractvalue {0}[0] : !mmaAccumulator
          %mmaStep = arith.constant 2 : i64
          nvvm.wgmma.fence.aligned
)",
                        int8 ? "%accIn" : "%mmaIn")
              .str();
  int64_t steps = kTileBytes / 32;
  for (int64_t step = 0; step < steps; ++step) {
    if (step > 0)
      text += llvm::formatv(R"(          %mmaA{1} = arith.addi %mmaA{0}, %mmaStep : i64
          %mmaB{1} = arith.addi %mmaB{0}, %mmaStep : i64
)",
                            step - 1, step)
                  .str();
    text += llvm::formatv("          %mmaC{1} = nvvm.wgmma.mma_async %mmaA{0}, %mmaB{0}, "
                          "%mmaC{0}, #nvvm.shape<m = 64, n = {2}, k = {3}>, D [<{5}>, <one>], "
                          "A [<{4}>, <one>, <row>], B [<{4}>, <one>, <col>] : !mmaFragment -> "
                          "!mmaFragment\n",
                          step, step + 1, tileN, stepK, type, int8 ? "s32" : "f32")
                .str();
  }
  text += llvm::formatv(R"(          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 1
)")
              .str();
  if (!int8) {
    text +=
        llvm::formatv(R"(          %mmaOut = llvm.insertvalue %mmaC{0}, %mmaIn[0] : !mmaAccumulator
          %accOut = builtin.unrealized_conversion_cast %mmaOut : !mmaAccumulator to !acc)",
                      steps)
            .str();
    return {{"MMA", text},      {"MMA_TYPES", aliases}, {"ACC", "!acc"},  {"ACC_INIT", floatInit},
            {"ACC_FINISH", ""}, {"ACC_F32", "%res"},    {"STAGED", "%v"}, {"UNBIAS", ""}};
  }
  text += llvm::formatv(
              "          %accOut = llvm.insertvalue %mmaC{0}, %accIn[0] : !mmaAccumulator", steps)
              .str();
  // After the loop, each i32 sum becomes the f32 the epilogue computes with (exact up to
  // 2^24), in !acc's LLVM form, so that the staging and epilogue are the float ones. With
  // `biasedSums` (sums within +-2^22), not by a conversion, which issues at an eighth of
  // the f32 rate: the sum added to the bits of 1.5 x 2^23 is the float 1.5 x 2^23 + sum,
  // staged as it is and unbiased by one subtraction as the epilogue loads it.
  aliases += "\n!mmaFloatFragment = " + structOf("f32") +
             "\n!mmaFloatAccumulator = !llvm.struct<(!mmaFloatFragment)>";
  std::string finish = R"(        %accSums = llvm.extractvalue %res[0] : !mmaAccumulator
)";
  if (!fragments)
    finish += "        %accF0 = llvm.mlir.undef : !mmaFloatFragment\n";
  if (biasedSums)
    finish += "        %accBiasBits = llvm.mlir.constant(1262485504 : i32) : i32\n";
  for (int64_t i = 0; i < tileN / 2; ++i)
    finish +=
        llvm::formatv(R"(        %accI{0} = llvm.extractvalue %accSums[{0}] : !mmaFragment
{1}{2})",
                      i,
                      biasedSums ? llvm::formatv("        %accB{0} = llvm.add %accI{0}, "
                                                 "%accBiasBits : i32\n"
                                                 "        %accV{0} = llvm.bitcast %accB{0} : i32 "
                                                 "to f32\n",
                                                 i)
                                       .str()
                                 : llvm::formatv("        %accV{0} = llvm.sitofp %accI{0} : i32 "
                                                 "to f32\n",
                                                 i)
                                       .str(),
                      fragments ? ""
                                : llvm::formatv("        %accF{1} = llvm.insertvalue %accV{0}, "
                                                "%accF{0}[{0}] : !mmaFloatFragment\n",
                                                i, i + 1)
                                      .str())
            .str();
  if (fragments) {
    // The epilogue reads the values where they lie (Sm90StoreFragments.mlir): as one
    // vector, whose elements the unrolled epilogue extracts at constant positions.
    std::string values;
    for (int64_t i = 0; i < tileN / 2; ++i)
      values += llvm::formatv("{0}%accV{1}", i ? ", " : "", i).str();
    finish += llvm::formatv("        {0} = vector.from_elements {1} : vector<{2}xf32>", valuesName,
                            values, tileN / 2)
                  .str();
  } else {
    finish += llvm::formatv(R"(        %accEmpty = llvm.mlir.undef : !mmaFloatAccumulator
        %accFloat = llvm.insertvalue %accF{0}, %accEmpty[0] : !mmaFloatAccumulator
        %resF32 = builtin.unrealized_conversion_cast %accFloat : !mmaFloatAccumulator to !acc)",
                            tileN / 2)
                  .str();
  }
  return {{"MMA", text},
          {"MMA_TYPES", aliases},
          {"ACC", "!mmaAccumulator"},
          {"ACC_INIT", "        %init = llvm.mlir.zero : !mmaAccumulator"},
          {"ACC_FINISH", finish},
          {"ACC_F32", "%resF32"},
          {"STAGED", biasedSums ? "%vBiased" : "%v"},
          {"UNBIAS", biasedSums ? llvm::formatv("            %vBias = arith.constant dense<"
                                                "0x4B400000> : vector<{0}xf32>\n"
                                                "            %v = arith.subf %vBiased, %vBias : "
                                                "vector<{0}xf32>",
                                                lanes)
                                      .str()
                                : ""}};
}
} // namespace

std::string kiln::sm90GemmEntryName(Type operand, Type result, bool kMajorB,
                                    const Sm90GemmConfig &config) {
  return "gemm_" + elementTypeName(operand) + "_" + elementTypeName(result) +
         (kMajorB ? "_bt_" : "_") + config.name();
}

memref::GlobalOp kiln::constantGlobal(Value value) {
  auto get = value.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return nullptr;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(get, get.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return nullptr;
  return global;
}

std::optional<std::pair<memref::GlobalOp, ArrayRef<char>>>
kiln::constantGlobalBytes(Value value, std::vector<char> &storage) {
  memref::GlobalOp global = constantGlobal(value);
  if (!global)
    return std::nullopt;
  Attribute init = *global.getInitialValue();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return std::make_pair(global, blob->getData());
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
    if (!dense.isSplat())
      return std::make_pair(global, dense.getRawData());
    ArrayRef<char> one = dense.getRawData();
    for (int64_t i = 0; i < dense.getNumElements(); ++i)
      storage.insert(storage.end(), one.begin(), one.end());
    return std::make_pair(global, ArrayRef<char>(storage));
  }
  return std::nullopt;
}

bool kiln::launchesPassConstant(kernel::FuncOp function, unsigned operand) {
  auto module = function->getParentOfType<ModuleOp>();
  if (!module)
    return false;
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(function, module);
  if (!uses || uses->empty())
    return false;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto launch = dyn_cast<kernel::LaunchOp>(use.getUser());
    if (!launch || launch.getOperands().size() <= operand ||
        !constantGlobal(launch.getOperands()[operand]))
      return false;
  }
  return true;
}

memref::GlobalOp kiln::getOrCreateConstantGlobal(SymbolTable &symbols, memref::GlobalOp near,
                                                 StringRef name, MemRefType type,
                                                 ArrayRef<char> bytes) {
  if (auto existing = symbols.lookup<memref::GlobalOp>(name))
    return existing;
  auto tensorType = RankedTensorType::get(type.getShape(), type.getElementType());
  auto init = DenseResourceElementsAttr::get(tensorType, name,
                                             HeapAsmResourceBlob::allocateAndCopyInferAlign(bytes));
  OpBuilder b(near);
  auto global =
      memref::GlobalOp::create(b, near.getLoc(), name, b.getStringAttr("private"), type, init,
                               /*constant=*/true, /*alignment=*/IntegerAttr());
  symbols.insert(global);
  return global;
}

FailureOr<Value> kiln::transposedConstantMatrix(OpBuilder &builder, Location loc,
                                                SymbolTable &symbols, Value matrix,
                                                StringRef suffix) {
  std::vector<char> splat;
  auto constant = constantGlobalBytes(matrix, splat);
  auto type = dyn_cast<MemRefType>(matrix.getType());
  if (!constant || !type || type.getRank() != 2 || !type.hasStaticShape())
    return failure();
  int64_t rows = type.getDimSize(0), columns = type.getDimSize(1);
  size_t element = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> bytes = constant->second;
  if (bytes.size() != size_t(rows * columns) * element)
    return failure();
  std::vector<char> transposed(bytes.size());
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < columns; ++column)
      std::memcpy(&transposed[(column * rows + row) * element],
                  &bytes[(row * columns + column) * element], element);
  auto transposedType = MemRefType::get({columns, rows}, type.getElementType());
  memref::GlobalOp global = getOrCreateConstantGlobal(symbols, constant->first,
                                                      (constant->first.getSymName() + suffix).str(),
                                                      transposedType, transposed);
  return memref::GetGlobalOp::create(builder, loc, global.getType(), global.getName()).getResult();
}

FailureOr<gpu::GPUFuncOp> kiln::insertTemplateModule(ModuleOp module, SymbolTable &symbols,
                                                     StringRef pass, StringRef entry,
                                                     const std::string &text) {
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, module.getContext());
  if (!parsed)
    return module.emitError(pass) << ": the template of " << entry << " does not parse";
  auto gpuModule = *parsed->getOps<gpu::GPUModuleOp>().begin();
  gpuModule->remove();
  symbols.insert(gpuModule);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  return gpuModule.lookupSymbol<gpu::GPUFuncOp>(entry);
}

FailureOr<gpu::GPUFuncOp> kiln::insertTemplateWithEpilogue(
    ModuleOp module, SymbolTable &symbols, StringRef pass, StringRef entry, const std::string &text,
    const Sm90Epilogue *epilogue, unsigned firstParameter, unsigned trailingParameters) {
  FailureOr<gpu::GPUFuncOp> kernel = insertTemplateModule(module, symbols, pass, entry, text);
  if (failed(kernel) || !epilogue)
    return kernel;
  if (succeeded(emitSm90Epilogue(*kernel, *epilogue, firstParameter, trailingParameters)))
    return kernel;
  // No half-made kernel stays behind (emitSm90Epilogue said what failed).
  auto gpuModule = (*kernel)->getParentOfType<gpu::GPUModuleOp>();
  symbols.erase(gpuModule);
  return failure();
}

int64_t kiln::sm90ResidualTileBytes(kernel::FuncOp function, const Sm90Epilogue *epilogue,
                                    const Sm90GemmConfig &config, bool rowMajorRows, Type result) {
  // (A stream-K part that is not its tile's last skips the epilogue, and so the residual
  // slot's protocol: its residual comes from global memory.)
  if (!epilogue || epilogue->empty() || !rowMajorRows || config.consumers == 0 ||
      config.splitK > 1 || config.streamK > 1)
    return 0;
  std::optional<unsigned> input = residualInput(*epilogue);
  if (!input)
    return 0;
  auto type =
      dyn_cast<MemRefType>(function.getFunctionType().getInput(epilogue->inputs[*input].argument));
  Type element = type ? type.getElementType() : Type();
  // (Its rows may be dynamic: the residual's tensor map then takes M at run time.)
  if (!type || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1) ||
      !type.getLayout().isIdentity() ||
      !(element.isInteger(8) || element.isF16() || element.isBF16() || element.isF32()))
    return 0;
  // TMA wants rows of a multiple of 16 bytes (MobileNetV2's 24 channels of i8 are not).
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  if (type.getShape().back() * elementBytes % 16 != 0)
    return 0;
  int64_t bytes = residualBoxes(config, elementBytes).bytes();
  return sm90ConfigFitsSm(config, config.residualSlots() * bytes,
                          result.getIntOrFloatBitWidth() / 8)
             ? bytes
             : 0;
}

FailureOr<gpu::GPUFuncOp> kiln::instantiateWarpSpecialisedGemm(
    ModuleOp module, SymbolTable &symbols, StringRef pass, StringRef entryBase, Type operand,
    Type result, int64_t columns, const Sm90GemmConfig &config, const Sm90AOperand &a,
    const Sm90Epilogue *epilogue, bool kMajorB, int64_t residualTileBytes, int64_t depth,
    const Sm90ThreadLoads &threads) {
  // Split-K parts store raw f32 partial sums to the workspace; the reduction kernel
  // rounds them and applies the epilogue.
  if (config.splitK > 1) {
    result = Float32Type::get(module.getContext());
    epilogue = nullptr;
  }
  if (epilogue && epilogue->empty())
    epilogue = nullptr;
  std::optional<unsigned> residual;
  if (epilogue && residualTileBytes > 0)
    residual = residualInput(*epilogue);
  // A thread stores 16 bytes of C at once (LANES elements), or fewer where C's rows are no
  // multiple of 16 bytes (i8 rows of a multiple of 8, ViT's 197 tokens), which the
  // kernel's name then tells.
  int64_t resultBytes = result.getIntOrFloatBitWidth() / 8;
  int64_t lanes = 16 / resultBytes;
  while (lanes > 1 && columns % lanes != 0)
    lanes /= 2;
  std::string entry = entryBase.str();
  if (lanes != 16 / resultBytes)
    entry += "_v" + std::to_string(lanes);
  entry += epilogue ? epilogue->key() : "";
  if (residual)
    entry += "_r";
  if (threads.a)
    entry += "_ta";
  if (threads.b)
    entry += "_tb";
  // Where N is a multiple of TILE_N every column of a tile is inside C: no column tests,
  // and the per-column inputs' loads share one address (at constant offsets). Else the
  // kernel (named "_nt", N's tail) tests each column.
  bool columnTail = columns % config.tileN != 0;
  if (columnTail)
    entry += "_nt";
  // |sum| <= K * 128 * 128 <= 2^22: the products' sums reach f32 through 1.5 x 2^23.
  bool biasedSums = operand.isInteger(8) && depth > 0 && depth * 128 * 128 <= (int64_t(1) << 22);
  if (biasedSums)
    entry += "_sb";
  std::string moduleName = "kiln_sm90_" + entry;
  if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName))
    return existing.lookupSymbol<gpu::GPUFuncOp>(entry);

  // The stored vector: the accumulators %v (vector<LANESxf32>), through the epilogue, as
  // they are or rounded.
  std::string out = elementTypeName(result);
  int64_t storeBytes = lanes * resultBytes;
  // A thread's items of 128 x TILE_N (256 consumer threads), loaded and computed in
  // batches of up to 64 elements before their stores, 32 in the 96 registers of two CTAs
  // an SM (more spill).
  bool oneCta = config.ctasPerSm == 1;
  int64_t threadItems = 128 * config.tileN / (256 * lanes);
  int64_t batch = std::min<int64_t>({8, (oneCta ? 64 : 32) / lanes, threadItems});
  int64_t rowLanes = std::min<int64_t>(32, config.tileN / lanes);
  // Four lanes a thread: consecutive lanes along a row, whose 16-byte reads of the f32
  // staging fill the banks. Wider: consecutive lanes on consecutive rows (4 banks apart,
  // the staging's padding: stagedColumns), so that the lanes 32 or 64 bytes apart in a
  // row fall on different banks.
  std::string laneMap = lanes == 4 ? "      %laneRow = arith.divui %lane, %rowLanes : index\n"
                                     "      %laneInRow = arith.remui %lane, %rowLanes : index"
                                   : "      %laneRow = arith.remui %lane, %rowsPerWarp : index\n"
                                     "      %laneInRow = arith.divui %lane, %rowsPerWarp : index";
  // A k-tile is one 128-byte swizzled row of K, or for i8 a 64-byte one. f32 operands are
  // tf32, and they and i8 ones need a K-major B; i8 sums leave only through an epilogue
  // (their rescale).
  int64_t elementBytes = operand.getIntOrFloatBitWidth() / 8;
  bool int8 = operand.isInteger(8);
  int64_t kTileBytes = config.tileK * elementBytes;
  if ((kTileBytes != 128 && !(int8 && kTileBytes == 64)) || config.tf32 != operand.isF32() ||
      config.int8 != int8 || ((operand.isF32() || int8) && !kMajorB) ||
      (int8 && !epilogue && config.splitK == 1))
    return module.emitError(pass) << ": no sm_90a GEMM of " << operand << " operands"
                                  << (kMajorB ? ", K-major B" : ", row-major B") << " under "
                                  << config.name();
  // A resident B is the whole of B for a persistent grid whose tiles are all in one column.
  if (config.residentKTiles > 0 &&
      (!config.persistent || config.splitK > 1 || columns > config.tileN || depth <= 0 ||
       config.residentKTiles != llvm::divideCeil(depth, config.tileK)))
    return module.emitError(pass) << ": " << config.name() << " keeps " << config.residentKTiles
                                  << " k-tiles of B resident, which is not all of this " << columns
                                  << "-column, " << depth
                                  << "-deep B on a persistent grid of one column of tiles";
  int64_t aStageBytes = config.aStageBytes(), bStageBytes = config.bStageBytes();
  // The producer's threads load 16-byte chunks of half-precision rows into 128B-swizzled
  // boxes, all 128 of them (one CTA an SM, every thread keeping the launch's registers),
  // for cooperative consumers, and nothing else of the producer's (a residual tile, a
  // resident B, split-K parts).
  if (threads.any() &&
      (elementBytes != 2 || (threads.b && kMajorB) || config.pingpong || config.consumers != 2 ||
       !oneCta || config.splitK > 1 || residual || config.residentKTiles > 0 || depth <= 0))
    return module.emitError(pass) << ": " << config.name()
                                  << " cannot load an operand of unaligned rows by threads "
                                     "(that takes f16 or bf16, a row-major B, two cooperative "
                                     "consumers, one CTA an SM, no split-K, residual tile or "
                                     "resident B)";
  // Stream-K's fix-up adds the parts' sums where the fragment epilogue holds them (an
  // MN-major B's accumulators), and a part that skips the epilogue skips a residual tile's
  // protocol with it.
  if (config.streamK > 1 && (kMajorB || residual || threads.any()))
    return module.emitError(pass) << ": " << config.name()
                                  << " (stream-K) needs a row-major B, TMA loads and no "
                                     "residual tile";
  // Ping-pong consumers: upstream's wgmma of 128-row accumulators reads an MN-major B.
  if (config.pingpong && kMajorB)
    return module.emitError(pass) << ": " << config.name()
                                  << " (ping-pong consumers) needs a row-major B";
  // i8 products and ping-pong consumers run their epilogue on the accumulator fragments
  // and stage only the results (Sm90StoreFragments.mlir): 2 elements a thread at once.
  // Its staging (rows of TILE_N results and 16 bytes: 64 for each ping-pong consumer)
  // fits where the f32 staging's is reserved.
  bool fragments = config.fragmentEpilogue();
  int64_t slices = config.pingpong ? 2 : 1;
  int64_t epilogueLanes = fragments ? 2 : lanes;
  // The fragment epilogue stages PASS_COLUMNS columns of its rows at a time
  // (Sm90GemmConfig::fragmentPassColumns).
  int64_t passColumns = config.fragmentPassColumns();
  int64_t outPitch = passColumns + 16 / resultBytes;
  int64_t outChunks = passColumns / lanes;
  std::string columnValues =
      !fragments && epilogue && rowLanes * lanes == config.tileN
          ? "        %columnsOfItems = arith.addi %n0, %laneCol : index\n"
            "        %columnsInside = arith.cmpi ult, %columnsOfItems, %n : index\n"
            "        %columnsAt = arith.select %columnsInside, %columnsOfItems, %c0 : index\n"
            "        %columnsMarker = builtin.unrealized_conversion_cast %columnsAt, %n : "
            "index, index to index {" +
                std::string(kEpilogueColumnsAttr) + "}"
          : "";
  auto number = [](int64_t value) { return std::to_string(value); };
  std::string tileK = number(config.tileK), tileN = number(config.tileN);
  // The operands' loads: by TMA through their tensor maps, or (Sm90ThreadLoads) by the
  // producer's threads from bare pointers, the first thread arming the stage with the TMA
  // operand's bytes and every thread arriving once its stores are fenced for the async
  // proxy (the wgmma read them).
  std::string loadA = a.loadA, loadB =
                                   "              nvgpu.tma.async.load %descB[{B_COORDINATES}], "
                                   "%full[%slot] to {B_DEST} : !tmB, !bars -> !boxBMap";
  std::string operandSetup, prefetch = "        nvgpu.tma.prefetch.descriptor %descA : !tmA\n"
                                       "        nvgpu.tma.prefetch.descriptor %descB : !tmB";
  std::string armStage =
      "            nvgpu.mbarrier.arrive.expect_tx %full[%slot], %stageBytes : !bars";
  std::string stageLoaded, earlyLoads;
  if (threads.any()) {
    auto byIssuer = [](const std::string &text) {
      return "            scf.if %issuer {\n" + text + "\n            }";
    };
    operandSetup = "    %c3 = arith.constant 3 : index\n    %c9 = arith.constant 9 : index\n";
    prefetch.clear();
    // With more than one k-tile, the threads stage each k-tile's rows through cp.async raw
    // buffers (past the ring and the staging: A's, then B's), the next k-tile's copies in
    // flight while this one is stored; with one, their loads go to registers directly.
    bool staged = depth > config.tileK;
    int64_t rawAt = config.ringAndStagingBytes(resultBytes);
    earlyLoads = "            %ek0 = arith.muli %kt, %tileK : index\n";
    // k-tile kt's copies were issued in the iteration before (or now, at the tile's first);
    // this iteration issues kt + 1's, then waits for kt's (all but the newest group).
    std::string copiesNow, copiesNext, stores;
    auto addOperand = [&](const ThreadLoadedOperand &operand) {
      operandSetup += operand.constants();
      earlyLoads += operand.view();
      copiesNow += operand.copy("%ek0", "%rawNow");
      copiesNext += operand.copy("%nk0", "%rawNext");
      stores += operand.store();
    };
    int64_t tmaBytes = 0;
    if (threads.a) {
      operandSetup += a.elements + "\n" +
                      "    %aFlat = memref.reinterpret_cast %aPointer to offset: [0], sizes: "
                      "[%aElements], strides: [1] : memref<{IN}> to memref<?x{IN}>\n"
                      "    %descA = ub.poison : !tmA\n";
      std::string base = "%c0";
      if (!a.aMatrix.empty()) {
        operandSetup +=
            llvm::formatv("    %aRowElements = arith.constant {0} : index\n", depth).str();
        earlyLoads += "            %aMatrixRows = arith.muli " + a.aMatrix + ", " + a.rowsBound +
                      " : index\n            %aMatrixBase = arith.muli %aMatrixRows, "
                      "%aRowElements : index\n";
        base = "%aMatrixBase";
      }
      if (staged) {
        // Unit u: row %m0 + u of A, from the k-tile's first column.
        addOperand({"ta", "%aFlat", "%aElements", "%rawA", "%offA", base, a.rowsBound, "%k", 128,
                    depth, rawAt, [](StringRef names, StringRef k0) {
                      return llvm::formatv("              %{0}Row = arith.addi %m0, %{0}U : index\n"
                                           "              %{0}Col0 = arith.addi {1}, %c0 : index",
                                           names, k0)
                          .str();
                    }});
        rawAt += sm90ThreadLoadRawBytes(config, {/*a=*/true, /*b=*/false}, depth);
        loadA.clear();
      } else {
        ThreadLoadedBox box = threadLoadedBox("la", "%aFlat", 128, "%offA", base, "%m0",
                                              a.rowsBound, "%ek0", "%k", depth);
        earlyLoads += box.load + "\n";
        loadA = box.store;
      }
    } else {
      loadA = byIssuer(a.loadA);
      prefetch += "        nvgpu.tma.prefetch.descriptor %descA : !tmA\n";
      tmaBytes += aStageBytes;
    }
    if (threads.b) {
      operandSetup += llvm::formatv("    %bElements = arith.constant {0} : index\n"
                                    "    %bFlat = memref.reinterpret_cast %bPointer to offset: "
                                    "[0], sizes: [%bElements], strides: [1] : memref<{{IN}> to "
                                    "memref<?x{{IN}>\n"
                                    "    %descB = ub.poison : !tmB\n"
                                    "    %bMatrixElements = arith.constant {1} : index\n",
                                    threads.bElements, depth * columns)
                          .str();
      std::string base = "%c0";
      if (!a.bMatrix.empty()) {
        earlyLoads +=
            "            %bMatrixBase = arith.muli " + a.bMatrix + ", %bMatrixElements : index\n";
        base = "%bMatrixBase";
      }
      // (The boxes are stored after the box loop, which then loads nothing.)
      loadB.clear();
      if (staged) {
        // Unit u: k-row u % 64 of the box of columns %n0 + 64 (u / 64)...
        addOperand({"tb", "%bFlat", "%bElements", "%rawB", "%offB", base, "%k", "%n", config.tileN,
                    columns, rawAt, [](StringRef names, StringRef k0) {
                      return llvm::formatv(
                                 "              %{0}Box = arith.divui %{0}U, %c64 : index\n"
                                 "              %{0}KRow = arith.remui %{0}U, %c64 : index\n"
                                 "              %{0}Row = arith.addi {1}, %{0}KRow : index\n"
                                 "              %{0}BoxCol = arith.muli %{0}Box, %c64 : index\n"
                                 "              %{0}Col0 = arith.addi %n0, %{0}BoxCol : index",
                                 names, k0)
                          .str();
                    }});
      } else {
        for (int64_t j = 0; j < config.tileN / 64; ++j) {
          std::string prefix = "lb" + std::to_string(j);
          earlyLoads +=
              llvm::formatv("            %{0}ColStep = arith.constant {1} : index\n"
                            "            %{0}Col0 = arith.addi %n0, %{0}ColStep : index\n",
                            prefix, j * 64)
                  .str();
          stores += llvm::formatv("            %{0}Off = arith.constant {1} : index\n"
                                  "            %{0}Dest = arith.addi %offB, %{0}Off : index\n",
                                  prefix, j * 64 * kTileBytes)
                        .str();
          ThreadLoadedBox box =
              threadLoadedBox(prefix, "%bFlat", config.tileK, "%" + prefix + "Dest", base, "%ek0",
                              "%k", "%" + prefix + "Col0", "%n", columns);
          earlyLoads += box.load + "\n";
          stores += box.store + "\n";
        }
      }
    } else {
      loadB = byIssuer(loadB);
      prefetch += "        nvgpu.tma.prefetch.descriptor %descB : !tmB\n";
      tmaBytes += bStageBytes;
    }
    if (staged)
      earlyLoads += R"(            %rawNow = arith.remui %g, %c2 : index
            %gAfter = arith.addi %g, %c1 : index
            %rawNext = arith.remui %gAfter, %c2 : index
            %ktNext = arith.addi %kt, %c1 : index
            %nk0 = arith.muli %ktNext, %tileK : index
            %firstKTile = arith.cmpi eq, %kt, %kBegin : index
            scf.if %firstKTile {
)" + copiesNow + R"(              nvvm.cp.async.commit.group
            }
            %hasNextKTile = arith.cmpi ult, %ktNext, %kEnd : index
            scf.if %hasNextKTile {
)" + copiesNext + R"(            }
            nvvm.cp.async.commit.group
            nvvm.cp.async.wait.group 1
)";
    if (!prefetch.empty())
      prefetch = "        scf.if %issuer {\n" + prefetch + "        }";
    armStage = byIssuer(
        tmaBytes > 0 ? llvm::formatv("              %tmaBytes = arith.constant {0} : index\n"
                                     "              nvgpu.mbarrier.arrive.expect_tx %full[%slot], "
                                     "%tmaBytes : !bars",
                                     tmaBytes)
                           .str()
                     : "              %armed = nvgpu.mbarrier.arrive %full[%slot] : !bars -> "
                       "!nvgpu.mbarrier.token");
    stageLoaded = stores +
                  "            nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = "
                  "#nvvm.shared_space<cta>}\n"
                  "            %loadedTok = nvgpu.mbarrier.arrive %full[%slot] : !bars -> "
                  "!nvgpu.mbarrier.token";
  }
  std::string text =
      substitutePlaceholders(kWarpSpecialisedTemplate, residentBPlaceholders(config, a.boxBytes));
  text = substitutePlaceholders(
      text,
      {// The epilogue's and the A operand's snippets first: they use the placeholders below.
       {"STORE_TILE", fragments ? kStoreFragments : kStoreStaged},
       {"ITEM_TILE", kItemTile},
       {"DESCRIPTORS", kTileBytes == 128 ? kDescriptors128 : kDescriptors64},
       {"TILES_M", a.tilesM},
       {"TILE_SETUP", a.tileSetup},
       {"LOAD_A", loadA},
       {"LOAD_B_BOX", loadB},
       {"OPERAND_SETUP", operandSetup},
       {"PREFETCH", prefetch},
       {"ARM_STAGE", armStage},
       {"STAGE_LOADED", stageLoaded},
       {"EARLY_LOADS", earlyLoads},
       {"LOADERS", threads.any() ? "%isProducer" : "%issuer"},
       {"FULL_ARRIVALS", threads.any() ? "129" : "1"},
       {"A_PARAMETER", threads.a ? "%aPointer: memref<{IN}>" : "%descA: !tmA"},
       {"B_PARAMETER", threads.b ? "%bPointer: memref<{IN}>" : "%descB: !tmB"},
       {"STAGED_ALIGNMENT", number(4 * lanes)},
       {"A_DESC_MAP", a.descMap},
       {"ROW_END", a.rowEnd},
       {"ROW_MAP", a.rowMap},
       {"A_BOX", a.box},
       {"MODULE", moduleName},
       {"ENTRY", entry},
       {"IN", elementTypeName(operand)},
       {"OUT", out},
       {"OUT_ZERO", isa<FloatType>(result) ? "0.0" : "0"},
       {"STORE_ALIGNMENT", number(storeBytes)},
       {"TILE_N", tileN},
       {"TILE_K", tileK},
       {"SWIZZLE", kTileBytes == 128 ? "swizzle_128b" : "swizzle_64b"},
       {"A_STAGE_BYTES", number(aStageBytes)},
       {"CONSUMER_ROWS", number(64 * slices)},
       {"TILE_M", number(config.tileM)},
       {"CONSUMERS", number(config.consumers)},
       {"CONSUMER_THREADS", number(128 * config.consumers)},
       {"A_ROWS_OFFSET", number(config.pingpong ? 0 : aStageBytes / config.consumers)},
       {"TURNS", number(slices)},
       {"EMPTY_BARRIERS", number(config.stages + (config.pingpong ? 1 : 0))},
       {"EMPTY_ARRIVALS", number(config.pingpong ? 128 : 128 * config.consumers)},
       {"EARLY_RELEASES", number(config.pingpong ? 0 : 1)},
       {"RELEASE_SLOT", config.pingpong
                            ? "          %releaseSlot = arith.addi %pending, %c0 : index"
                            : "          %releaseSlot = arith.addi %previousSlot, %c0 : index"},
       {"RELEASE_LAST", config.pingpong
                            ? "        // The tile's last k-tile: its wgmma have completed.\n"
                              "        %lastTok = nvgpu.mbarrier.arrive %empty[%lastPending] : "
                              "!emptyBars -> !nvgpu.mbarrier.token"
                            : ""},
       // Ping-pong consumers take turns at the main loop: the CTA's tile j waits until
       // tile j - 1's main loop has waited for all of its k-tiles (named barrier 2 + w for
       // consumer w: the other's 128 threads arrive, its own sync). Besides keeping one
       // consumer's wgmma at a time, this keeps a full barrier's parity unambiguous: a
       // consumer waits for k-tile g only once k-tile g - STAGES has landed.
       {"TURN_WAIT", config.pingpong ? R"(        %turnWait = arith.cmpi ne, %item, %pid : index
        scf.if %turnWait {
          %myTurnBarrier = arith.index_castui %wg : index to i32
          %turnBarrierBase = arith.constant 2 : i32
          %myTurn = arith.addi %turnBarrierBase, %myTurnBarrier : i32
          %turnThreads = arith.constant 256 : i32
          nvvm.barrier id = %myTurn number_of_threads = %turnThreads
        })"
                                     : ""},
       {"TURN_SIGNAL", config.pingpong ? R"(        %nextItem = arith.addi %item, %grid : index
        %hasNext = arith.cmpi ult, %nextItem, %items : index
        scf.if %hasNext {
          %otherWg = arith.subi %c1, %wg : index
          %otherTurnBarrier = arith.index_castui %otherWg : index to i32
          %otherTurnBase = arith.constant 2 : i32
          %otherTurn = arith.addi %otherTurnBase, %otherTurnBarrier : i32
          %otherThreads = arith.constant 256 : i32
          nvvm.barrier.arrive id = %otherTurn number_of_threads = %otherThreads
        })"
                                       : ""},
       {"WG_STAGING_BYTES", number(config.pingpong ? config.stagingBytes(resultBytes) / 2 : 0)},
       {"FRAGMENT_SLICES", number(slices)},
       {"STAGED_ROWS", number(config.tileM / slices)},
       {"FRAGMENT_WARPS", number(config.pingpong ? 4 : 4 * config.consumers)},
       {"FRAGMENT_SLICE_VALUES", number(config.tileN / 2)},
       {"B_BOX_BYTES", number(64 * kTileBytes)},
       {"B_VIEW", a.bMatrix.empty()
                      ? std::string()
                      : llvm::formatv("              %bjMap = memref.expand_shape %bj [[0, 1], "
                                      "[2]] output_shape [1, {0}] : !boxB into !boxBMap",
                                      kMajorB ? "64, " + tileK : tileK + ", 64")
                            .str()},
       {"B_DEST", a.bMatrix.empty() ? "%bj" : "%bjMap"},
       {"B_MAP_BOX", (a.bMatrix.empty() ? "" : "1x") + (kMajorB ? "64x" + tileK : tileK + "x64")},
       {"B_BOX", kMajorB ? "64x" + tileK : tileK + "x64"},
       {"B_COORDINATES", (kMajorB ? "%k0, %nj" : "%nj, %k0") +
                             (a.bMatrix.empty() ? std::string() : ", " + a.bMatrix)},
       {"B_TILE", kMajorB ? tileN + "x" + tileK : tileK + "x" + tileN},
       {"STAGES", number(config.stages)},
       {"B_BOXES", number(config.tileN / 64)},
       {"B_STAGE_BYTES", number(bStageBytes)},
       {"B_BASE", number(config.stages * aStageBytes)},
       {"STAGED_COLUMNS", number(config.stagedColumns())},
       {"OUT_PITCH", number(outPitch)},
       {"OUT_CHUNKS", number(outChunks)},
       {"OUT_ITEMS", number(16 * outChunks / 32)},
       {"PASS_COLUMNS", number(passColumns)},
       {"PASS_GROUPS", number(passColumns / 8)},
       {"FRAGMENT_PASSES", number(config.tileN / passColumns)},
       {"FRAGMENT_VALUES", number(slices * config.tileN / 2)},
       {"PAIR_ALIGNMENT", number(2 * resultBytes)},
       // With one CTA an SM (232 registers a thread) the epilogue's loads go first; two
       // CTAs' 96 would spill them.
       {"FRAGMENT_LOOP", oneCta ? "unroll, hoist_loads" : "unroll"},
       {"FRAGMENT_BARRIER", config.persistent
                                ? ""
                                : "        nvvm.barrier id = %epilogueBarrier number_of_threads = "
                                  "%consumerThreads"},
       {"COLUMN_INSIDE", columnTail ? "%colInside = arith.cmpi ult, %gcol, %n : index"
                                    : "%colInside = arith.constant true"},
       {"LANES", number(lanes)},
       {"ROW_LANES", number(rowLanes)},
       {"LANE_MAP", laneMap},
       {"BATCH", number(batch)},
       {"SPLITS", number(config.splitK)},
       {"CTAS_PER_SM", number(config.ctasPerSm)},
       {"THREADS", number(config.threads())},
       // (The producer's threads that load keep the launch's registers.)
       {"SHRINK_PRODUCER", oneCta && !threads.any()
                               ? "      nvvm.setmaxregister decrease " + number(kProducerRegisters)
                               : ""},
       // (What the producer leaves of the 65536 registers, shared by the consumers'
       // threads, a multiple of 8 each: 232 for two, 152 for three.)
       {"GROW_CONSUMERS",
        oneCta && !threads.any()
            ? "      nvvm.setmaxregister increase " +
                  number(std::min<int64_t>(232, (65536 - kProducerRegisters * 128) /
                                                    (128 * config.consumers) / 8 * 8))
            : ""},
       // Every item of a thread has the same columns where a chunk spans the tile. With
       // one CTA an SM (registers to spare) the loads go before the main loop, whose
       // wgmma then cover their latency; with two, just before the batches.
       {"COLUMN_VALUES_EARLY", oneCta ? columnValues : ""},
       {"COLUMN_VALUES", oneCta ? "" : columnValues},
       {"STAGING_BASE", number(config.persistent ? config.ringBytes() : 0)}});
  // Stream-K: the fix-up makes the epilogue's %accValues of the consumer's own sums, which
  // ACC_FINISH then names %accOwn.
  bool streamK = config.streamK > 1;
  std::vector<std::pair<StringRef, std::string>> accumulators =
      accumulatorPlaceholders(operand, config.tileN, kMajorB, biasedSums, epilogueLanes, kTileBytes,
                              fragments, slices, streamK ? "%accOwn" : "%accValues");
  int64_t fragmentValues = slices * config.tileN / 2;
  text = substitutePlaceholders(
      text,
      {{"STREAM_K_FIXUP", streamK ? kStreamKFixup : "        %storeTile = arith.constant true"},
       {"STREAM_K_PARAMETERS",
        streamK ? ", %streamKPartials: memref<f32>, %streamKTickets: memref<i32>" : ""},
       {"STREAM_K_GLOBALS", streamK ? "  memref.global \"private\" @streamKTicket : "
                                      "memref<2xi32, #gpu.address_space<workgroup>>"
                                    : ""},
       {"STREAM_K", number(config.streamK)},
       {"STREAM_K_SLOT_FLOATS", number(128 * config.tileN)},
       {"STREAM_K_GROUPS", number(fragmentValues / 4)},
       // Cooperative consumers each hold half of the tile's rows: each has its half of
       // the part's slot and a ticket of its own.
       {"STREAM_K_CONSUMER_FLOATS", number(config.pingpong ? 0 : 128 * fragmentValues)},
       {"STREAM_K_CONSUMER_TICKET", number(config.pingpong ? 0 : 1)},
       {"FRAGMENT_VALUES", number(fragmentValues)}});
  text = substitutePlaceholders(text, accumulators);
  text = substitutePlaceholders(
      text, residualPlaceholders(residual ? epilogue->inputs[*residual].elementType : Type(),
                                 config, resultBytes));
  // The epilogue reads its inputs at C's row and column, kept inside C by the template;
  // the residual at the element's place in its tile.
  text = substitutePlaceholders(
      text, sm90EpiloguePlaceholders(epilogue, result, "%v", "%growAt", "%gcolAt", "%m", "%n",
                                     epilogueLanes,
                                     !residual   ? ""
                                     : fragments ? "%rFlat, %c0, %rAt : !tileRFlat, index, index"
                                                 : "%rTile, %r, %col : !tileR, index, index"));
  FailureOr<gpu::GPUFuncOp> kernel =
      insertTemplateWithEpilogue(module, symbols, pass, entry, text, epilogue,
                                 /*firstParameter=*/6, /*trailingParameters=*/streamK ? 2 : 0);
  if (failed(kernel) || failed(unrollMarkedLoops(*kernel)))
    return failure();
  return kernel;
}

int64_t kiln::sm90ThreadLoadRawBytes(const Sm90GemmConfig &config, const Sm90ThreadLoads &threads,
                                     int64_t depth) {
  // Two k-tiles of raw rows of 72 halves (nine 16-byte words) a unit: A's 128 rows, B's
  // TILE_N (64 k-rows a box of 64 columns); none for one k-tile (loads to registers).
  if (depth <= config.tileK)
    return 0;
  return 2 * 72 * 2 * ((threads.a ? 128 : 0) + (threads.b ? config.tileN : 0));
}

SmallVector<Value> kiln::epilogueBuffers(kernel::LaunchOp launch, const Sm90Epilogue &epilogue) {
  SmallVector<Value> buffers;
  for (const Sm90EpilogueInput &input : epilogue.inputs)
    buffers.push_back(launch.getOperands()[input.argument]);
  return buffers;
}

Value kiln::barePointer(OpBuilder &b, Location loc, Value buffer) {
  auto type = MemRefType::get({}, cast<MemRefType>(buffer.getType()).getElementType());
  return memref::ReinterpretCastOp::create(b, loc, type, buffer, /*offset=*/0,
                                           /*sizes=*/ArrayRef<int64_t>{},
                                           /*strides=*/ArrayRef<int64_t>{});
}

Value kiln::hostExtentProduct(OpBuilder &b, Location loc, Value buffer, int64_t begin,
                              int64_t end) {
  auto type = cast<MemRefType>(buffer.getType());
  Value product = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t dim = begin; dim < end; ++dim)
    product = arith::MulIOp::create(
        b, loc, product,
        type.isDynamicDim(dim)
            ? memref::DimOp::create(b, loc, buffer, dim).getResult()
            : arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim)).getResult());
  return product;
}

Value kiln::rowsInVariant(OpBuilder &b, Location loc, OpFoldResult rows, int64_t above,
                          int64_t atMost) {
  Value m = getValueOrCreateConstantIndexOp(b, loc, rows);
  auto compare = [&](arith::CmpIPredicate predicate, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, m,
                                 arith::ConstantIndexOp::create(b, loc, bound));
  };
  Value inside;
  if (above > 0)
    inside = compare(arith::CmpIPredicate::ugt, above);
  if (atMost > 0) {
    Value within = compare(arith::CmpIPredicate::ule, atMost);
    inside = inside ? arith::AndIOp::create(b, loc, inside, within).getResult() : within;
  }
  return inside;
}

std::string kiln::describeRowsInVariant(int64_t above, int64_t atMost) {
  if (above > 0 && atMost > 0)
    return llvm::formatv(", for {0} < M <= {1}", above, atMost).str();
  if (atMost > 0)
    return llvm::formatv(", for M <= {0}", atMost).str();
  if (above > 0)
    return llvm::formatv(", for M > {0}", above).str();
  return "";
}

LogicalResult kiln::launchWarpSpecialisedGemm(
    OpBuilder &b, Location loc, ModuleOp module, SymbolTable &symbols, StringRef pass,
    gpu::GPUFuncOp gemm, const Sm90GemmConfig &config, OpFoldResult tiles, Value mapA, Value mapB,
    Value output, OpFoldResult rows, int64_t n, int64_t k, const Sm90Epilogue *epilogue,
    ValueRange epilogueBuffers, int64_t maxRows, Value enabled) {
  if (epilogue && epilogue->empty())
    epilogue = nullptr;
  // Split-K's reduction kernel first, so that nothing is built on the host when it fails.
  gpu::GPUFuncOp reduce;
  Type result = cast<MemRefType>(output.getType()).getElementType();
  std::optional<int64_t> staticRows = getConstantIntValue(rows);
  // The workspace's rows: M, or for a run-time M the most it can be.
  int64_t workspaceRows = staticRows.value_or(maxRows);
  if (config.splitK > 1 && workspaceRows <= 0)
    return gemm.emitError(pass) << ": split-K needs a bound on M";
  int64_t m = staticRows.value_or(ShapedType::kDynamic);
  if (config.splitK > 1) {
    std::string entry = llvm::formatv("split_k_reduce_{0}_{1}x{2}{3}", elementTypeName(result),
                                      config.splitK, n, epilogue ? epilogue->key() : "")
                            .str();
    std::string moduleName = "kiln_" + entry;
    if (auto existing = symbols.lookup<gpu::GPUModuleOp>(moduleName)) {
      reduce = existing.lookupSymbol<gpu::GPUFuncOp>(entry);
    } else {
      auto number = [](int64_t value) { return std::to_string(value); };
      std::string text = substitutePlaceholders(
          kSplitKReduceTemplate,
          {{"MODULE", moduleName},
           {"ENTRY", entry},
           {"OUT", elementTypeName(result)},
           {"SPLITS", number(config.splitK)},
           {"N", number(n)},
           {"STORE_ALIGNMENT", number(4 * result.getIntOrFloatBitWidth() / 8)}});
      text = substitutePlaceholders(
          text, sm90EpiloguePlaceholders(epilogue, result, "%sum", "%row", "%col", "%m", "%n"));
      FailureOr<gpu::GPUFuncOp> parsed = insertTemplateWithEpilogue(
          module, symbols, pass, entry, text, epilogue, /*firstParameter=*/3);
      if (failed(parsed))
        return failure();
      reduce = *parsed;
    }
  }

  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto i32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, value, 32);
  };
  auto pointer = [&](Value buffer) { return barePointer(b, loc, buffer); };
  Value one = index(1);
  // M and the grid: constants, or host arithmetic on a run-time M (the engine's shape
  // program computes them per input shape).
  Value mValue = staticRows
                     ? i32(m)
                     : arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                                  getValueOrCreateConstantIndexOp(b, loc, rows))
                           .getResult();
  Value grid;
  if (std::optional<int64_t> staticTiles = getConstantIntValue(tiles)) {
    grid = index(config.gridSize(*staticTiles));
  } else {
    grid = arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, tiles),
                                 index(config.splitK * config.streamK));
    if (config.persistent)
      grid = arith::MinUIOp::create(b, loc, grid, index(kSm90Multiprocessors * config.ctasPerSm));
  }
  // A variant for some run-time Ms only: elsewhere its grids are empty, and the engine
  // skips its launches.
  auto gate = [&](Value size) {
    return enabled ? arith::SelectOp::create(b, loc, enabled, size, index(0)).getResult() : size;
  };
  grid = gate(grid);
  // Split-K: the parts' f32 partial sums go to a workspace (placed by kernel-plan-buffers),
  // which the reduction kernel then adds up into C.
  Value destination = output;
  if (config.splitK > 1)
    destination = memref::AllocOp::create(
        b, loc,
        MemRefType::get({config.splitK, workspaceRows, n}, Float32Type::get(b.getContext())));
  // The epilogue's inputs follow M, N, K, in whichever kernel applies it.
  SmallVector<Value> extra;
  if (epilogue)
    for (Value buffer : epilogueBuffers)
      extra.push_back(pointer(buffer));
  SmallVector<Value> arguments = {mapA, mapB, pointer(destination), mValue, i32(n), i32(k)};
  if (config.splitK == 1)
    arguments.append(extra);
  // A kernel instantiated with a residual tile takes its tensor map last: the residual
  // seen as the M x N matrix C is, in boxes of 128 rows x TILE_N columns.
  int64_t sharedBytes = config.sharedBytes(result.getIntOrFloatBitWidth() / 8);
  FunctionType signature = gemm.getFunctionType();
  // An operand the producer's threads load (a bare pointer, no tensor map) has raw buffers.
  Sm90ThreadLoads threads;
  threads.a = isa<MemRefType>(signature.getInput(0));
  threads.b = isa<MemRefType>(signature.getInput(1));
  sharedBytes += sm90ThreadLoadRawBytes(config, threads, k);
  if (epilogue && signature.getNumInputs() == arguments.size() + 1) {
    std::optional<unsigned> residual = residualInput(*epilogue);
    auto mapType = dyn_cast<nvgpu::TensorMapDescriptorType>(signature.getInputs().back());
    if (!residual || !mapType)
      return gemm.emitError(pass) << ": the kernel's residual tile has no residual input";
    Value buffer = epilogueBuffers[*residual];
    Type element = cast<MemRefType>(buffer.getType()).getElementType();
    Value matrix = memref::ReinterpretCastOp::create(
        b, loc, MemRefType::get({m, n}, element), buffer, /*offset=*/b.getIndexAttr(0),
        ArrayRef<OpFoldResult>{rows, b.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(n), b.getIndexAttr(1)});
    Value unranked = memref::CastOp::create(b, loc, UnrankedMemRefType::get(element, 0), matrix);
    // The box is the map's tile (the whole residual tile, or one of its boxes).
    ArrayRef<int64_t> box = mapType.getTensor().getShape();
    arguments.push_back(nvgpu::TmaCreateDescriptorOp::create(
        b, loc, mapType, unranked, ValueRange{index(box[0]), index(box[1])}));
    sharedBytes +=
        config.residualSlots() * residualBoxes(config, element.getIntOrFloatBitWidth() / 8).bytes();
  }
  // Stream-K: the parts' workspace (a slot of 128 x TILE_N f32 sums for each CTA the grid
  // can have: a CTA has at most one part) and two ticket counters (one a consumer) for
  // each tile of the last wave, zeroed before every launch (the engine's fill step).
  if (config.streamK > 1) {
    int64_t slots = kSm90Multiprocessors * config.ctasPerSm;
    Value partials = memref::AllocOp::create(
        b, loc, MemRefType::get({slots * config.tileM * config.tileN}, b.getF32Type()));
    Value tickets = memref::AllocOp::create(b, loc, MemRefType::get({2 * slots}, b.getI32Type()));
    gpu::MemsetOp::create(b, loc, /*asyncToken=*/Type(), /*asyncDependencies=*/ValueRange(),
                          tickets, i32(0));
    arguments.push_back(pointer(partials));
    arguments.push_back(pointer(tickets));
  }
  gpu::LaunchFuncOp::create(b, loc, gemm, gpu::KernelDim3{grid, one, one},
                            gpu::KernelDim3{index(config.threads()), one, one}, i32(sharedBytes),
                            arguments);
  if (config.splitK == 1)
    return success();
  SmallVector<Value> reduceArguments = {pointer(destination), pointer(output), mValue};
  reduceArguments.append(extra);
  // A thread for each 4 elements of C, 256 threads a block.
  Value reduceGrid =
      staticRows ? index(llvm::divideCeil(m * n / 4, 256))
                 : arith::CeilDivUIOp::create(
                       b, loc,
                       arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, rows),
                                             index(n)),
                       index(4 * 256))
                       .getResult();
  gpu::LaunchFuncOp::create(b, loc, reduce, gpu::KernelDim3{gate(reduceGrid), one, one},
                            gpu::KernelDim3{index(256), one, one},
                            /*dynamicSharedMemorySize=*/Value(), reduceArguments);
  return success();
}

namespace {
void canonicalize(Operation *root) {
  MLIRContext *context = root->getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, context);
  (void)applyPatternsGreedily(root, std::move(patterns));
}
} // namespace

namespace {
/// Moves the loads of an unrolled loop's body (the ops of `block` after `before`, or
/// from its start) ahead of its first op, with the pure ops their addresses take, in
/// order: a loop marked `hoist_loads` reads memory nothing in it writes, and its copies'
/// loads then issue together instead of each waiting out its latency in its copy's
/// chain (a register-rich epilogue's residual and per-column inputs).
void hoistUnrolledLoads(RewriterBase &rewriter, Block *block, Operation *before) {
  Operation *first = before ? before->getNextNode() : &block->front();
  if (!first)
    return;
  SmallVector<Operation *> loads;
  for (Operation *op = first->getNextNode(); op; op = op->getNextNode())
    if (isa<vector::LoadOp, memref::LoadOp>(op))
      loads.push_back(op);
  for (Operation *load : loads)
    if (succeeded(moveValueDefinitions(rewriter, load->getOperands(), first)))
      load->moveBefore(first);
}
} // namespace

LogicalResult kiln::unrollMarkedLoops(Operation *root) {
  // Folding first makes the loop bounds constants.
  canonicalize(root);
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp loop) {
    if (loop->hasAttr("unroll"))
      loops.push_back(loop);
  });
  IRRewriter rewriter(root->getContext());
  for (scf::ForOp loop : loops) {
    bool hoist = loop->hasAttr("hoist_loads");
    Operation *before = loop->getPrevNode();
    Block *block = loop->getBlock();
    if (failed(loopUnrollFull(loop)))
      return failure();
    if (hoist)
      hoistUnrolledLoads(rewriter, block, before);
  }
  canonicalize(root);
  return success();
}
