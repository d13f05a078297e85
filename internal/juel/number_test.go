package juel

import (
	"math"
	"testing"
)

func TestJavaString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string // a JSON number
		want string // Long.toString or Double.toString
	}{
		{"0", "0"},
		{"-0", "0"},
		{"42", "42"},
		{"-42", "-42"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"0.0", "0.0"},
		{"-0.0", "-0.0"},
		{"1.0", "1.0"},
		{"1.50", "1.5"},
		{"1e0", "1.0"},
		{"1234567.0", "1234567.0"},
		{"9999999.5", "9999999.5"},
		{"1e7", "1.0E7"}, // 10^7 and above: scientific
		{"12345678.9", "1.23456789E7"},
		{"0.001", "0.001"}, // 10^-3 and above: plain
		{"0.00099", "9.9E-4"},
		{"0.0001", "1.0E-4"},
		{"-1.5e-10", "-1.5E-10"},
		{"1e100", "1.0E100"},
		{"100e-2", "1.0"},
		{"0.1000000000000000000000000000000001", "0.1000000000000000000000000000000001"}, // every exact digit kept
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			num, err := parseDecimal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := num.javaString(); got != tc.want {
				t.Fatalf("javaString(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestFromFloat(t *testing.T) {
	t.Parallel()
	tenth, fifth := 0.1, 0.2
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0.1, "0.1"},
		{tenth + fifth, "0.30000000000000004"}, // a float from the scope is taken as it is
		{2, "2.0"},
		{1e21, "1.0E21"},
		{math.Copysign(0, -1), "-0.0"},
		{5e-324, "4.9E-324"}, // Double.MIN_VALUE: Java shows two digits, the nearer pair
		{1e-323, "9.9E-324"},
	} {
		num, err := fromFloat(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := num.javaString(); got != tc.want {
			t.Errorf("fromFloat(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, err := fromFloat(f); err == nil {
			t.Errorf("fromFloat(%v) accepted a non-JSON number", f)
		}
	}
}

func TestIntValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"5", 5},
		{"-5", -5},
		{"4294967297", 1},           // (int) of a long keeps the low 32 bits
		{"2147483648", -2147483648}, // and wraps
		{"18446744073709551617", 1}, // BigInteger.intValue too
		{"1.9", 1},                  // (int) of a double truncates
		{"-1.9", -1},
		{"1e20", math.MaxInt32}, // and saturates
		{"-1e20", math.MinInt32},
	} {
		num, err := parseDecimal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := num.intValue(); got != tc.want {
			t.Errorf("intValue(%s) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestQuotient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x, y, want string
	}{
		{"7", "2", "3.5"},
		{"1", "3", "0.3333333333333333"},
		{"2", "3", "0.6666666666666666"},
		{"10", "3", "3.3333333333333335"}, // the double nearest 10/3, as Java prints it
		{"-1", "3", "-0.3333333333333333"},
		{"1", "7", "0.14285714285714285"},
		{"0", "5", "0.0"},
		{"123456789012345678", "2", "6.1728394506172839E16"},        // exact: every digit
		{"1", "1099511627776", "9.094947017729282379150390625E-13"}, // 2^-40 has 28 digits: exact
	} {
		x, _ := parseDecimal(tc.x)
		y, _ := parseDecimal(tc.y)
		q, err := quotient(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.javaString(); got != tc.want {
			t.Errorf("%s / %s = %s, want %s", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "a", -1},
		{"abc", "abd", -1},
		{"ab", "abc", -1},
		{"\uff61", "😀", 1}, // U+FF61 > U+D83D (the high surrogate)
		{"😀", "😁", -1},
	} {
		if got := compareUTF16(tc.a, tc.b); got != tc.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
