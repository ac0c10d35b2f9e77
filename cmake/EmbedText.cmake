# Writes the text file IN as a C++ raw string literal into OUT (a .inc file to #include
# where the string is wanted), so that kernel templates stay readable .mlir files.
#   cmake -DIN=template.mlir -DOUT=template.mlir.inc -P EmbedText.cmake
file(READ "${IN}" text)
file(WRITE "${OUT}" "R\"KILN_EMBEDDED(${text})KILN_EMBEDDED\"\n")
