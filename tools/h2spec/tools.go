//go:build tools

// Package tools pins h2spec, the HTTP/2 conformance suite the integration tests run against
// bsfd's SBI listeners (tests/integration/test_sbi_h2spec.py). Built by scripts/h2spec-fetch.sh.
package tools

import _ "github.com/summerwind/h2spec/cmd/h2spec"
