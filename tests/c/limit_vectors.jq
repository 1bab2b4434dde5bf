# Flattens tests/vectors/limits.json into tab-separated lines the C test
# (test_limit_vectors in tests/c/test_capi.c) reads without a JSON library.
#   T name default                        (a row of the table; default "-" when another setting)
#   L name form given expect text         (a case; form absent|int|seconds|raw; expect value|error;
#                                          text: the value ("-" for another setting) or the
#                                          message fragment in base64)
if .format != "iikocloud-limit-vectors" or .version != 1 then error("unknown vectors format") else . end |
(.limits[] | ["T", .name, (if .default == null then "-" else (.default | tostring) end)] | join("\t")),
(.cases[] |
  (if has("absent") then ["absent", "-"]
   elif has("int") then ["int", (.int | tostring)]
   elif has("seconds") then ["seconds", (.seconds | tostring)]
   else ["raw", (.raw | tostring)] end) as $given |
  (["L", .limit] + $given +
   (if has("error") then ["error", (.error | @base64)]
    else ["value", (if .value == null then "-" else (.value | tostring) end)] end)) | join("\t"))
