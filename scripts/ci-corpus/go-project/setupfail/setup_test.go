package setupfail

import (
	"testing"

	"github.com/acme/widgets/nosuchpkg"
)

func TestX(t *testing.T) { _ = nosuchpkg.Y }
