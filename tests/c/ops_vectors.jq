# Flattens tests/vectors/operations.json into tab-separated lines the C test
# (tests/c/test_operations.c) reads without a JSON library. Text is base64.
#   C name operation wait outcome request     (one case)
#   X text                                    (error_contains of the C line before)
#   K path kind value                         (answer checks; kind equals|money|present;
#                                              equals: the expected value as compact JSON)
def b64: tostring | @base64;
if .format != "iikocloud-operation-vectors" or .version != 1 then error("unknown vectors format") else . end |
.cases[] |
  (["C", (.name | b64), .operation, (if .wait then "1" else "0" end), .expect.outcome,
    (.request | tojson | b64)] | join("\t")),
  ((.expect.error_contains // [])[] | ["X", b64] | join("\t")),
  ((.expect.answer // [])[] |
     if has("equals") then ["K", .path, "equals", (.equals | tojson | b64)]
     elif has("money") then ["K", .path, "money", (.money | b64)]
     else ["K", .path, "present", ("1" | b64)] end | join("\t"))
