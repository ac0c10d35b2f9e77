// The Hopper (sm_90a) GEMM template of sm90_gemm (passes/kernel/MatmulSm90.cpp):
// C[M, N] = A[M, K] x B[K, N], row major, {IN} operands accumulated in f32 by wgmma, {OUT}
// result. One warpgroup computes a 128x128 tile of C, K stepped by 64; TMA brings A and B
// into a 3-stage ring of dynamic shared memory. The ABI, tensor maps, shared-memory map and
// pipeline: docs/codegen-sm90.md.
//
// The pass substitutes {MODULE}, {ENTRY}, {IN} (f16, bf16), {OUT} (f32, f16, bf16),
// {EPILOGUE_PARAMETERS} and {EPILOGUE} (a fused epilogue's inputs after %K and the op
// standing for its arithmetic on %v, the vector<4xf32> of accumulators, replaced once
// parsed: passes/kernel/Sm90Epilogue.h; or nothing), {CONVERT} (nothing for f32; else the
// truncation of the f32 value into %out), {STORED} (the value stored) and
// {STORE_ALIGNMENT} (the bytes of four {OUT}), then parses the result.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64x{IN}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64x{IN}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!wdA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64x{IN}, 3>>
!wdB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128x{IN}, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!tileA = memref<128x64x{IN}, #gpu.address_space<workgroup>>
!boxB = memref<64x64x{IN}, #gpu.address_space<workgroup>>
!tileB = memref<64x128x{IN}, #gpu.address_space<workgroup>>

gpu.module @{MODULE} {

  // Shared memory map (bytes from `base`, a 1024-aligned offset into dynamic shared memory;
  // 128B-swizzled tiles and the wgmma descriptors with base_offset 0 need 1024 alignment):
  //   A stage s:  s * 16384            (128 rows of M x 64 of K, 128 bytes a row)
  //   B stage s:  49152 + s * 16384    (two 64x64 boxes: columns n0..n0+63, then +64..+127)
  //   C staging after the main loop: 0 .. 69632 (128 rows x 136 floats, padded against
  //   bank conflicts), reusing the ring.
  // The launch gives 100352 bytes (98304 + 2048): `base` is placed past the small static
  // shared variables (the mbarriers, the zero-sized dynamic-shared-memory symbol) and rounded
  // up to 1024, wherever ptxas puts them.

  // C ({OUT}) = A x B ({IN}), accumulated in f32. Grid (N/128, M/128, 1), block (128, 1, 1),
  // 100352 bytes of dynamic shared memory. %C is a bare pointer to the row-major M x N
  // output; M, N, K are multiples of 128, 128, 64.
  gpu.func @{ENTRY}(%descA: !tmA, %descB: !tmB, %C: memref<{OUT}>,
                                       %M: i32, %N: i32, %K: i32{EPILOGUE_PARAMETERS})
      kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %c1087 = arith.constant 1087 : index
    %c8192 = arith.constant 8192 : index
    %c16384 = arith.constant 16384 : index
    %c49152 = arith.constant 49152 : index
    %stages = arith.constant 3 : index
    %stageBytes = arith.constant 32768 : index
    %ticks = arith.constant 10000000 : index
    %m = arith.index_castui %M : i32 to index
    %n = arith.index_castui %N : i32 to index
    %k = arith.index_castui %K : i32 to index
    %numK = arith.divui %k, %c64 : index
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %n0 = arith.muli %bx, %c128 : index
    %n1 = arith.addi %n0, %c64 : index
    %m0 = arith.muli %by, %c128 : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index

    // The ring's 1024-aligned offset inside dynamic shared memory, past the static shared
    // variables (see the map above).
    %dyn = gpu.dynamic_shared_memory : !smem
    %addr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %addrUp = arith.addi %addr, %c1087 : index
    %addrRem = arith.remui %addrUp, %c1024 : index
    %aligned = arith.subi %addrUp, %addrRem : index
    %base = arith.subi %aligned, %addr : index

    // full[s]: armed by thread 0 (one arrival plus the TMA byte count), completes when the
    // stage's 32 KB have landed. empty[s]: all 128 threads arrive once they no longer read
    // the stage (their wgmma on it have completed); thread 0 waits for it before a refill.
    %full = nvgpu.mbarrier.create -> !bars
    %empty = nvgpu.mbarrier.create -> !bars
    scf.if %leader {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %full[%s], %c1 : !bars
        nvgpu.mbarrier.init %empty[%s], %c128 : !bars
      }
      // The barriers were initialised by generic-proxy stores; the TMA unit (async proxy)
      // signals them next.
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvgpu.tma.prefetch.descriptor %descA : !tmA
      nvgpu.tma.prefetch.descriptor %descB : !tmB
      // Prologue: k-tiles 0 .. stages-2 into stages 0 .. stages-2.
      %ahead = arith.subi %stages, %c1 : index
      %pro = arith.minui %ahead, %numK : index
      scf.for %kt = %c0 to %pro step %c1 {
        %k0 = arith.muli %kt, %c64 : index
        %slotOff = arith.muli %kt, %c16384 : index
        %offA = arith.addi %base, %slotOff : index
        %offB0 = arith.addi %offA, %c49152 : index
        %offB1 = arith.addi %offB0, %c8192 : index
        %a = memref.view %dyn[%offA][] : !smem to !tileA
        %b0 = memref.view %dyn[%offB0][] : !smem to !boxB
        %b1 = memref.view %dyn[%offB1][] : !smem to !boxB
        nvgpu.mbarrier.arrive.expect_tx %full[%kt], %stageBytes : !bars
        // Coordinates innermost first: A is {k, m}, B is {n, k}.
        nvgpu.tma.async.load %descA[%k0, %m0], %full[%kt] to %a : !tmA, !bars -> !tileA
        nvgpu.tma.async.load %descB[%n0, %k0], %full[%kt] to %b0 : !tmB, !bars -> !boxB
        nvgpu.tma.async.load %descB[%n1, %k0], %full[%kt] to %b1 : !tmB, !bars -> !boxB
      }
    }
    gpu.barrier

    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    %res = scf.for %kt = %c0 to %numK step %c1 iter_args(%accIn = %init) -> (!acc) {
      // k-tile kt sits in stage kt % 3; it is that stage's fill number kt / 3, whose
      // completion flips full[stage] to parity (kt / 3) & 1.
      %slot = arith.remui %kt, %stages : index
      %round = arith.divui %kt, %stages : index
      %roundBit = arith.andi %round, %c1 : index
      %phase = arith.cmpi ne, %roundBit, %c0 : index
      nvgpu.mbarrier.try_wait.parity %full[%slot], %phase, %ticks : !bars

      %slotOff = arith.muli %slot, %c16384 : index
      %offA = arith.addi %base, %slotOff : index
      %offB = arith.addi %offA, %c49152 : index
      %a = memref.view %dyn[%offA][] : !smem to !tileA
      %b = memref.view %dyn[%offB][] : !smem to !tileB
      %dA = nvgpu.warpgroup.generate.descriptor %a, %descA : !tileA, !tmA -> !wdA
      %dB = nvgpu.warpgroup.generate.descriptor %b, %descB : !tileB, !tmB -> !wdB
      // B is row major (N contiguous): transposeB selects the MN-major B operand. The op
      // ends waiting until at most one wgmma group (this one) is in flight, so this
      // thread's wgmma on k-tile kt-1 have completed when it returns.
      %accOut = nvgpu.warpgroup.mma %dA, %dB, %accIn {transposeB}
        : !wdA, !wdB, !acc -> !acc

      // Release k-tile kt-1's stage, (kt+2) % 3, and refill it with k-tile kt+2 (thread 0).
      // The release is unconditional: at kt = 0 it is a release of stage 2, not filled yet,
      // which pre-completes empty[2] once. (A `kt > 0` test here made LLVM peel the first
      // iteration, materialising the zero accumulators between wgmma.fence and the first
      // wgmma, and ptxas then serialised the wgmma: C7519/C7517.)
      %ahead = arith.subi %stages, %c1 : index
      %next = arith.addi %kt, %ahead : index
      %nextSlot = arith.remui %next, %stages : index
      %tok = nvgpu.mbarrier.arrive %empty[%nextSlot] : !bars -> !nvgpu.mbarrier.token
      %inRange = arith.cmpi ult, %next, %numK : index
      %issue = arith.andi %leader, %inRange : i1
      scf.if %issue {
        // k-tile `next` is fill f = next / 3 of its stage s. It may go in once k-tile next-3
        // is released: completion f-1 of empty[s], or completion f for s = 2 (which counts
        // the early release above). Wait for that completion's parity.
        %fill = arith.divui %next, %stages : index
        %isLast = arith.cmpi eq, %nextSlot, %ahead : index
        %extra = arith.select %isLast, %c1, %c0 : index
        %fillPlus = arith.addi %fill, %extra : index
        %completion = arith.subi %fillPlus, %c1 : index
        %cBit = arith.andi %completion, %c1 : index
        %ePhase = arith.cmpi ne, %cBit, %c0 : index
        nvgpu.mbarrier.try_wait.parity %empty[%nextSlot], %ePhase, %ticks : !bars
        %k0 = arith.muli %next, %c64 : index
        %nOff = arith.muli %nextSlot, %c16384 : index
        %nOffA = arith.addi %base, %nOff : index
        %nOffB0 = arith.addi %nOffA, %c49152 : index
        %nOffB1 = arith.addi %nOffB0, %c8192 : index
        %na = memref.view %dyn[%nOffA][] : !smem to !tileA
        %nb0 = memref.view %dyn[%nOffB0][] : !smem to !boxB
        %nb1 = memref.view %dyn[%nOffB1][] : !smem to !boxB
        nvgpu.mbarrier.arrive.expect_tx %full[%nextSlot], %stageBytes : !bars
        nvgpu.tma.async.load %descA[%k0, %m0], %full[%nextSlot] to %na : !tmA, !bars -> !tileA
        nvgpu.tma.async.load %descB[%n0, %k0], %full[%nextSlot] to %nb0 : !tmB, !bars -> !boxB
        nvgpu.tma.async.load %descB[%n1, %k0], %full[%nextSlot] to %nb1 : !tmB, !bars -> !boxB
      }
      scf.yield %accOut : !acc
    }
    nvvm.wgmma.wait.group.sync.aligned 0

    // Epilogue. The ring is free once every warp's last wgmma has completed (the barrier)
    // and every TMA load was waited for (the main loop consumed them all). The accumulator
    // goes to a padded 128x128 f32 tile at the ring's start, then out in 16-byte rows.
    gpu.barrier
    %padded = memref.view %dyn[%base][] : !smem to memref<128x136xf32, #gpu.address_space<workgroup>>
    %cs = memref.subview %padded[0, 0] [128, 128] [1, 1]
      : memref<128x136xf32, #gpu.address_space<workgroup>>
        to memref<128x128xf32, strided<[136, 1]>, #gpu.address_space<workgroup>>
    nvgpu.warpgroup.mma.store %res, %cs
      : !acc to memref<128x128xf32, strided<[136, 1]>, #gpu.address_space<workgroup>>
    gpu.barrier

    // Each warp writes one row per step (32 lanes x 4 elements), 4 rows a step.
    %cg = memref.reinterpret_cast %C to offset: [0], sizes: [%m, %n], strides: [%n, 1]
      : memref<{OUT}> to memref<?x?x{OUT}, strided<[?, 1]>>
    %lane = arith.remui %tid, %c32 : index
    %warp = arith.divui %tid, %c32 : index
    %col = arith.muli %lane, %c4 : index
    %gcol = arith.addi %n0, %col : index
    scf.for %r = %warp to %c128 step %c4 {
      %v = vector.load %cs[%r, %col] {alignment = 16}
        : memref<128x128xf32, strided<[136, 1]>, #gpu.address_space<workgroup>>, vector<4xf32>
      %grow = arith.addi %m0, %r : index
      {EPILOGUE}
      {CONVERT}
      vector.store {STORED}, %cg[%grow, %gcol] {alignment = {STORE_ALIGNMENT}}
        : memref<?x?x{OUT}, strided<[?, 1]>>, vector<4x{OUT}>
    }
    gpu.return
  }
}
