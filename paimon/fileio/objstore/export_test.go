package objstore

// Names the external tests use of what the package keeps to itself.
var (
	ErrShortRead  = errShortRead
	ParseLocation = parseLocation
	IsTransient   = isTransient
)

type Location = location
