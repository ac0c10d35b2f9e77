// The stream-K fix-up of the warp-specialised template ({STREAM_K_FIXUP} of
// Sm90GemmWs.mlir, between a consumer's main loop and its fragment epilogue; its values
// and placeholders are the template's). An item that is a part of a tile of the last wave
// (%itemPartsI > 1) has summed only its k-tiles: the consumer's 128 threads store their
// sums (%accOwn, the fragment values ACC_FINISH named so) to the part's slot of the
// workspace %streamKPartials (a ping-pong consumer's tile: the whole slot; a cooperative
// one's 64 rows: its half), thread-major in vectors of 4 (each store a coalesced 2 KiB),
// then take a ticket of its counter in %streamKTickets (two a tile, zeroed by the launch:
// the consumers of a cooperative part count apart). The consumer that takes the last
// ticket has every other part's sums in the workspace: it adds them to its own into
// %accValues and runs the epilogue (%storeTile); the others skip it.
// No part waits for another, so the CTAs need not all be resident. Each CTA has at most
// one part (its last item), so a slot is written once and read once a launch.
//
// Ordering: each thread's stores, then a GPU-scope fence, then the consumer's named
// barrier (4 + its warpgroup), then its first thread's atomic add: a part's sums are
// visible before its ticket counts. The last part's threads fence again before their
// loads, after the barrier that hands them the ticket (through %streamKTicket, a word of
// shared memory a consumer).
// Its own placeholders: FRAGMENT_VALUES (the thread's sums), STREAM_K_GROUPS
// (FRAGMENT_VALUES / 4), STREAM_K_SLOT_FLOATS (128 x TILE_N: a part's floats),
// STREAM_K_CONSUMER_FLOATS (where consumer 1's sums start in a slot: 0 for ping-pong
// consumers) and STREAM_K_CONSUMER_TICKET (1: a counter a consumer; 0: one a tile).
        %partItemValue = arith.cmpi ugt, %itemPartsI, %c1I : i32
        %trueValue = arith.constant true
        %accValues, %storeTile = scf.if %partItemValue -> (vector<{FRAGMENT_VALUES}xf32>, i1) {
          %skThread = arith.remui %tid, %c128 : index
          %skThreadFloats = arith.muli %skThread, %c4 : index
          %skSlotFloats = arith.constant {STREAM_K_SLOT_FLOATS} : index
          %skRowFloats = arith.constant 512 : index
          %skGroups = arith.constant {STREAM_K_GROUPS} : index
          %skFloats = arith.muli %grid, %skSlotFloats : index
          %skTicketCount = arith.muli %grid, %c2 : index
          %skConsumerFloats = arith.constant {STREAM_K_CONSUMER_FLOATS} : index
          %skConsumerOffset = arith.muli %wg, %skConsumerFloats : index
          %skThreadAt = arith.addi %skConsumerOffset, %skThreadFloats : index
          %skConsumerTicket = arith.constant {STREAM_K_CONSUMER_TICKET} : index
          %skPartials = memref.reinterpret_cast %streamKPartials to offset: [0], sizes: [%skFloats], strides: [1]
            : memref<f32> to memref<?xf32, strided<[1], offset: ?>>
          %skTickets = memref.reinterpret_cast %streamKTickets to offset: [0], sizes: [%skTicketCount], strides: [1]
            : memref<i32> to memref<?xi32, strided<[1], offset: ?>>
          %skMineI = arith.subi %itemI, %fullItemsI : i32
          %skMine = arith.index_castui %skMineI : i32 to index
          %skTileI = arith.subi %tileI, %fullItemsI : i32
          %skTile = arith.index_castui %skTileI : i32 to index
          %skMineSlot = arith.muli %skMine, %skSlotFloats : index
          %skMineBase = arith.addi %skMineSlot, %skThreadAt : index
          %skTileTickets = arith.muli %skTile, %c2 : index
          %skTicketOffset = arith.muli %wg, %skConsumerTicket : index
          %skTicketAt = arith.addi %skTileTickets, %skTicketOffset : index
          scf.for %i = %c0 to %skGroups step %c1 {
            %e0 = arith.muli %i, %c4 : index
            %e1 = arith.addi %e0, %c1 : index
            %e2 = arith.addi %e0, %c2 : index
            %e3 = arith.addi %e1, %c2 : index
            %x0 = vector.extract %accOwn[%e0] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %x1 = vector.extract %accOwn[%e1] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %x2 = vector.extract %accOwn[%e2] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %x3 = vector.extract %accOwn[%e3] : f32 from vector<{FRAGMENT_VALUES}xf32>
            %x = vector.from_elements %x0, %x1, %x2, %x3 : vector<4xf32>
            %iFloats = arith.muli %i, %skRowFloats : index
            %at = arith.addi %skMineBase, %iFloats : index
            vector.store %x, %skPartials[%at] {alignment = 16} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
          } {unroll}
          nvvm.memory.barrier #nvvm.mem_scope<gpu>
          %skWg = arith.index_castui %wg : index to i32
          %skBarrierBase = arith.constant 4 : i32
          %skBarrier = arith.addi %skBarrierBase, %skWg : i32
          %skThreads = arith.constant 128 : i32
          nvvm.barrier id = %skBarrier number_of_threads = %skThreads
          %skTicketShared = memref.get_global @streamKTicket : memref<2xi32, #gpu.address_space<workgroup>>
          %skFirst = arith.cmpi eq, %skThread, %c0 : index
          scf.if %skFirst {
            %earlier = memref.atomic_rmw addi %c1I, %skTickets[%skTicketAt] : (i32, memref<?xi32, strided<[1], offset: ?>>) -> i32
            memref.store %earlier, %skTicketShared[%wg] : memref<2xi32, #gpu.address_space<workgroup>>
          }
          nvvm.barrier id = %skBarrier number_of_threads = %skThreads
          %skTicket = memref.load %skTicketShared[%wg] : memref<2xi32, #gpu.address_space<workgroup>>
          %skLastTicket = arith.subi %itemPartsI, %c1I : i32
          %skIsLast = arith.cmpi eq, %skTicket, %skLastTicket : i32
          %skSum = scf.if %skIsLast -> (vector<{FRAGMENT_VALUES}xf32>) {
            nvvm.memory.barrier #nvvm.mem_scope<gpu>
            %skParts = arith.index_castui %itemPartsI : i32 to index
            %skLastTiles = arith.index_castui %lastTilesI : i32 to index
            %summed = scf.for %p = %c0 to %skParts step %c1 iter_args(%sum = %accOwn) -> (vector<{FRAGMENT_VALUES}xf32>) {
              %pSlots = arith.muli %p, %skLastTiles : index
              %other = arith.addi %pSlots, %skTile : index
              %isOther = arith.cmpi ne, %other, %skMine : index
              %next = scf.if %isOther -> (vector<{FRAGMENT_VALUES}xf32>) {
                %otherSlot = arith.muli %other, %skSlotFloats : index
                %otherBase = arith.addi %otherSlot, %skThreadAt : index
                %added = scf.for %i = %c0 to %skGroups step %c1 iter_args(%acc = %sum) -> (vector<{FRAGMENT_VALUES}xf32>) {
                  %iFloats = arith.muli %i, %skRowFloats : index
                  %at = arith.addi %otherBase, %iFloats : index
                  %y = vector.load %skPartials[%at] {alignment = 16} : memref<?xf32, strided<[1], offset: ?>>, vector<4xf32>
                  %e0 = arith.muli %i, %c4 : index
                  %e1 = arith.addi %e0, %c1 : index
                  %e2 = arith.addi %e0, %c2 : index
                  %e3 = arith.addi %e1, %c2 : index
                  %y0 = vector.extract %y[0] : f32 from vector<4xf32>
                  %y1 = vector.extract %y[1] : f32 from vector<4xf32>
                  %y2 = vector.extract %y[2] : f32 from vector<4xf32>
                  %y3 = vector.extract %y[3] : f32 from vector<4xf32>
                  %a0 = vector.extract %acc[%e0] : f32 from vector<{FRAGMENT_VALUES}xf32>
                  %a1 = vector.extract %acc[%e1] : f32 from vector<{FRAGMENT_VALUES}xf32>
                  %a2 = vector.extract %acc[%e2] : f32 from vector<{FRAGMENT_VALUES}xf32>
                  %a3 = vector.extract %acc[%e3] : f32 from vector<{FRAGMENT_VALUES}xf32>
                  %s0 = arith.addf %a0, %y0 : f32
                  %s1 = arith.addf %a1, %y1 : f32
                  %s2 = arith.addf %a2, %y2 : f32
                  %s3 = arith.addf %a3, %y3 : f32
                  %acc0 = vector.insert %s0, %acc[%e0] : f32 into vector<{FRAGMENT_VALUES}xf32>
                  %acc1 = vector.insert %s1, %acc0[%e1] : f32 into vector<{FRAGMENT_VALUES}xf32>
                  %acc2 = vector.insert %s2, %acc1[%e2] : f32 into vector<{FRAGMENT_VALUES}xf32>
                  %acc3 = vector.insert %s3, %acc2[%e3] : f32 into vector<{FRAGMENT_VALUES}xf32>
                  scf.yield %acc3 : vector<{FRAGMENT_VALUES}xf32>
                } {unroll}
                scf.yield %added : vector<{FRAGMENT_VALUES}xf32>
              } else {
                scf.yield %sum : vector<{FRAGMENT_VALUES}xf32>
              }
              scf.yield %next : vector<{FRAGMENT_VALUES}xf32>
            }
            scf.yield %summed : vector<{FRAGMENT_VALUES}xf32>
          } else {
            scf.yield %accOwn : vector<{FRAGMENT_VALUES}xf32>
          }
          scf.yield %skSum, %skIsLast : vector<{FRAGMENT_VALUES}xf32>, i1
        } else {
          scf.yield %accOwn, %trueValue : vector<{FRAGMENT_VALUES}xf32>, i1
        }
