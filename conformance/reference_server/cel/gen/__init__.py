"""cel-go's grammar (parser/gen/CEL.g4, v0.23.2) as ANTLR 4.7.2 generated it for Python: see
tools/celgrammar/regenerate.sh. Generated code, not edited by hand."""
