# Flattens tests/vectors/webhook_vectors.json into tab-separated lines the C
# test reads without a JSON library. Text fields are base64 (so any byte, tab
# or newline survives); "~" stands for null.
#   V name header expected_token error|ok
#   P name body max_body_bytes max_depth flags outcome event_count single_object
#   E index field value            (fields of the P line before)
#   T index path text local        (local_times of the P line before)
#   R name expected_token body max_body_bytes max_depth flags status outcome event_count nheaders
#   H name value                   (headers of the R line before)
# body is F:<path relative to tests/vectors> or B:<base64>.
def b64: if . == null then "~" else tostring | @base64 end;
def body: if .body_file then "F:" + .body_file
          elif .body_base64 then "B:" + .body_base64
          else "B:" + (.body | @base64) end;
def opts: [(.options.max_body_bytes // 0), (.options.max_depth // 0),
           (if .options.accept_single_object == false then 1 else 0 end)] | map(tostring);
def num: if . == null then "~" else tostring end;
def utc_ms: if . == null then null
            else ((.[0:19] + "Z") | fromdateiso8601) * 1000
                 + (if .[19:20] == "." then (.[20:23] | tonumber) else 0 end)
            end;
(.verify[] | ["V", (.name | b64),
              (if .header_base64 then .header_base64 else (.header | b64) end),
              (.expected_token | b64), (.error // "ok")] | join("\t")),
(.parse[] |
  (["P", (.name | b64), body] + opts
   + [.outcome, (.event_count | num),
      (if .single_object == null then "~" elif .single_object then "1" else "0" end)]
   | join("\t")),
  ((.events // []) | to_entries[] | .key as $i | .value | to_entries[]
   | if .key == "local_times" then
       (.value[] | ["T", ($i | tostring), (.path | b64), (.text | b64), (.local | b64)]
        | join("\t"))
     else
       (if .key == "event_time_utc" then .value |= utc_ms else . end
        | ["E", ($i | tostring), .key, (.value | b64)] | join("\t"))
     end)),
(.receive[] |
  (["R", (.name | b64), (.expected_token | b64), body] + opts
   + [(.status | tostring), .outcome, (.event_count | num), (.headers | length | tostring)]
   | join("\t")),
  (.headers[] | ["H", (.[0] | b64), (.[1] | b64)] | join("\t")))
