package devices

import (
	"fmt"
	"strconv"
)

// jsonInt accepts a JSON number, a string holding a number (util-linux before
// 2.33), an empty string or null (zero). Only non-negative decimal integers
// occur in lsblk's output; anything else is an error.
type jsonInt struct{ v int64 }

func (j *jsonInt) UnmarshalJSON(b []byte) error {
	s := unquote(b)
	if len(s) == 0 || string(s) == "null" {
		j.v = 0
		return nil
	}
	v, err := strconv.ParseUint(string(s), 10, 63) // 63 bits: fits int64
	if err != nil {
		return fmt.Errorf("not an integer: %s", b)
	}
	j.v = int64(v)
	return nil
}

// jsonBool accepts true/false, "1"/"0" (util-linux before 2.33), 1/0,
// "true"/"false", an empty string or null (false).
type jsonBool struct{ v bool }

func (j *jsonBool) UnmarshalJSON(b []byte) error {
	switch string(unquote(b)) {
	case "true", "1":
		j.v = true
	case "false", "0", "", "null":
		j.v = false
	default:
		return fmt.Errorf("not a boolean: %s", b)
	}
	return nil
}

// unquote strips the quotes of a JSON string without escapes, which is all
// lsblk prints for numbers and flags; anything else is returned as is and
// then fails to parse.
func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}
