// The warp-specialised template's work item (ITEM_TILE of Sm90GemmWs.mlir, in both the
// producer's and the consumers' item loops, whose values it uses): from item %item, the
// tile (%tileI, and its place %tileRow, %tileCol in groups of 8 tile rows), the part of
// its k-tiles the item computes ([%kBegin, %kEnd), %kCount; %splitI and %itemPartsI:
// which part of how many), for split-K, stream-K or neither.
// Item = split * tiles + tile with split-K, else a tile or a stream-K part (see
// %fullItems); the part's k-tiles are [kBegin, kEnd). (Without either the item is
// the tile: the scf.ifs fold away.)
%itemI = arith.index_castui %item : index to i32
%tileI, %splitI, %itemPartsI = scf.if %hasSplits -> (i32, i32, i32) {
  %tileRem = arith.remui %itemI, %tilesI : i32
  %splitQuo = arith.divui %itemI, %tilesI : i32
  scf.yield %tileRem, %splitQuo, %splitsI : i32, i32, i32
} else {
  %pastFull = arith.cmpi uge, %itemI, %fullItemsI : i32
  %isPart = arith.andi %hasStreamK, %pastFull : i1
  %partTile, %part, %parts = scf.if %isPart -> (i32, i32, i32) {
    %partItem = arith.subi %itemI, %fullItemsI : i32
    %lastTile = arith.remui %partItem, %lastTilesSomeI : i32
    %partOfTile = arith.divui %partItem, %lastTilesSomeI : i32
    %tileOfPart = arith.addi %fullItemsI, %lastTile : i32
    scf.yield %tileOfPart, %partOfTile, %partsI : i32, i32, i32
  } else {
    scf.yield %itemI, %c0I, %c1I : i32, i32, i32
  }
  scf.yield %partTile, %part, %parts : i32, i32, i32
}
%splitK = arith.muli %splitI, %numKI : i32
%kBeginI = arith.divui %splitK, %itemPartsI : i32
%splitKEnd = arith.addi %splitK, %numKI : i32
%kEndI = arith.divui %splitKEnd, %itemPartsI : i32
%kBegin = arith.index_castui %kBeginI : i32 to index
%kEnd = arith.index_castui %kEndI : i32 to index
%kCount = arith.subi %kEnd, %kBegin : index
%group = arith.divui %tileI, %perGroupI : i32
%firstM = arith.muli %group, %groupMI : i32
%rowsLeft = arith.subi %tilesMI, %firstM : i32
%groupRows = arith.minui %rowsLeft, %groupMI : i32
%inGroup = arith.remui %tileI, %perGroupI : i32
%rowInGroup = arith.remui %inGroup, %groupRows : i32
%tileRowI = arith.addi %firstM, %rowInGroup : i32
%tileColI = arith.divui %inGroup, %groupRows : i32
%tileRow = arith.index_castui %tileRowI : i32 to index
%tileCol = arith.index_castui %tileColI : i32 to index
