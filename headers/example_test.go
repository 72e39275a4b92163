package headers_test

import (
	"fmt"

	"github.com/mcpdual/mcpdual/headers"
)

// Values that are not safe as plain header text travel in the base64
// sentinel; Decode undoes it and refuses malformed values.
func ExampleEncode() {
	for _, v := range []string{"emails_list", "café", " padded "} {
		enc := headers.Encode(v)
		dec, err := headers.Decode(enc)
		fmt.Printf("%q -> %s -> %q %v\n", v, enc, dec, err)
	}
	// Output:
	// "emails_list" -> emails_list -> "emails_list" <nil>
	// "café" -> =?base64?Y2Fmw6k=?= -> "café" <nil>
	// " padded " -> =?base64?IHBhZGRlZCA=?= -> " padded " <nil>
}
