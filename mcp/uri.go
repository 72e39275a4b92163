package mcp

import (
	"fmt"
	"net/url"
	"strings"
)

// maxURIBytes bounds a URI a client may ask to read.
const maxURIBytes = 2048

func checkURI(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme == "":
		return fmt.Errorf("not an absolute URI")
	case u.Fragment != "" || strings.ContainsAny(s, " \t\r\n"):
		return fmt.Errorf("a resource URI has no fragment or white space")
	case len(s) > maxURIBytes:
		return fmt.Errorf("longer than %d bytes", maxURIBytes)
	}
	return nil
}
