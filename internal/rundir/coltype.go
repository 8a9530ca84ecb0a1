package rundir

import (
	"errors"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// colKind is what a column of samples.parquet means, whatever encoding
// the tool that wrote the file chose for it.
type colKind int

const (
	kindInt32  colKind = iota // a signed 32-bit integer (tester)
	kindUint32                // an unsigned 32-bit integer (client)
	kindInt64                 // a signed 64-bit integer (seq, bytes, phases)
	kindTime                  // ns since the Unix epoch, or a TIMESTAMP of any unit
	kindStatus                // a status class name
	kindString                // any text
	kindDouble                // a number that may be null (extras)
)

// colType is how one column of a file holds its kind: which physical type,
// whether unsigned, and by what an integer is multiplied to get ns.
type colType struct {
	kind     colKind
	phys     parquet.Kind
	unsigned bool  // an unsigned integer annotation: INT32 holds uint32 bits
	scale    int64 // a TIMESTAMP's unit in ns (1 otherwise)
}

// columnType checks that leaf holds kind in an encoding that says the
// same thing as diperf's own (INT32 or INT64 with or without an integer
// annotation, TIMESTAMP for times, text for strings, FLOAT or DOUBLE or
// an integer for extras), and returns how; the error names the column.
func columnType(name string, leaf parquet.LeafColumn, kind colKind) (colType, error) {
	t := leaf.Node.Type()
	ct := colType{kind: kind, phys: t.Kind(), scale: 1}
	fail := func(err error) (colType, error) {
		return ct, fmt.Errorf("column %s: %w", name, err)
	}
	if leaf.MaxRepetitionLevel > 0 {
		return fail(errors.New("a repeated (list) column, where diperf writes one value per row"))
	}
	want, err := physicalFor(kind, ct.phys)
	if err != nil {
		return fail(err)
	}
	if !want {
		return fail(fmt.Errorf("holds %s values, where diperf writes %s", ct.phys, kindName(kind)))
	}
	if ct.phys == parquet.ByteArray || kind == kindDouble && (ct.phys == parquet.Float || ct.phys == parquet.Double) {
		return ct, nil
	}
	ct.unsigned, ct.scale, err = integerAnnotation(t, kind == kindTime)
	if err != nil {
		return fail(err)
	}
	return ct, nil
}

// physicalFor reports whether physical type phys can hold kind.
func physicalFor(kind colKind, phys parquet.Kind) (bool, error) {
	switch {
	case phys == parquet.Int96:
		return false, errors.New("INT96 timestamps (deprecated) are not read: write TIMESTAMP(NANOS) or INT64 ns")
	case kind == kindStatus || kind == kindString:
		return phys == parquet.ByteArray, nil
	case kind == kindDouble:
		return phys == parquet.Double || phys == parquet.Float || phys == parquet.Int32 || phys == parquet.Int64, nil
	default:
		return phys == parquet.Int32 || phys == parquet.Int64, nil
	}
}

// kindName says what diperf writes for kind.
func kindName(kind colKind) string {
	switch kind {
	case kindStatus, kindString:
		return "text (BYTE_ARRAY)"
	case kindDouble:
		return "numbers (DOUBLE)"
	case kindTime:
		return "integer ns (INT64) or TIMESTAMP"
	}
	return "integers (INT32 or INT64)"
}

// integerAnnotation checks the logical (or, in older files, converted)
// type of an integer column: none, INT(bits, signed), or for a time
// TIMESTAMP of any unit, whose ns per unit it returns.
func integerAnnotation(t parquet.Type, time bool) (unsigned bool, scale int64, err error) {
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *format.IntType:
			return !v.IsSigned, 1, nil
		case *format.TimestampType:
			if time && v.Unit.Value != nil {
				return false, int64(v.Unit.Value.Duration()), nil
			}
		}
		return false, 0, fmt.Errorf("annotated %s, which does not say what diperf means there", lt)
	}
	ct := t.ConvertedType()
	if ct == nil {
		return false, 1, nil
	}
	switch *ct {
	case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		return false, 1, nil
	case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		return true, 1, nil
	case deprecated.TimestampMillis:
		if time {
			return false, 1e6, nil
		}
	case deprecated.TimestampMicros:
		if time {
			return false, 1e3, nil
		}
	}
	return false, 0, fmt.Errorf("annotated with the converted type %d, which does not say what diperf means there", *ct)
}

// native reports whether pages of this column can be taken as they are:
// the physical type diperf writes for the kind, in ns.
func (ct colType) native() bool {
	switch ct.kind {
	case kindInt32, kindUint32:
		return ct.phys == parquet.Int32
	case kindInt64, kindTime:
		return ct.phys == parquet.Int64 && ct.scale == 1 && !ct.unsigned
	}
	return false
}

// integer converts a non-null value of an integer column into the int64
// it means (ns for a time), checked against the kind's range.
func (ct colType) integer(v parquet.Value) (int64, error) {
	var x int64
	switch {
	case v.Kind() == parquet.Int32 && ct.unsigned:
		x = int64(v.Uint32())
	case v.Kind() == parquet.Int32:
		x = int64(v.Int32())
	case v.Kind() == parquet.Int64 && ct.unsigned && v.Uint64() > math.MaxInt64:
		return 0, fmt.Errorf("value %d out of range", v.Uint64())
	case v.Kind() == parquet.Int64:
		x = v.Int64()
	default:
		return 0, fmt.Errorf("a %s value in an integer column", v.Kind())
	}
	if ct.scale != 1 {
		if x > math.MaxInt64/ct.scale || x < math.MinInt64/ct.scale {
			return 0, fmt.Errorf("timestamp %d out of range", x)
		}
		x *= ct.scale
	}
	switch {
	case ct.kind == kindInt32 && (x < math.MinInt32 || x > math.MaxInt32):
		return 0, fmt.Errorf("value %d out of the range of a 32-bit tester index", x)
	case ct.kind == kindUint32 && (x < 0 || x > math.MaxUint32):
		return 0, fmt.Errorf("value %d out of the range of a 32-bit client index", x)
	}
	return x, nil
}
