package orc

import (
	"testing"
	"time"
)

// TestJavaZoneOffset pins javaZoneOffset to what Java 17's
// TimeZone.getTimeZone(zone).getOffset(ms) returned for these instants
// (probed with OpenJDK 17.0.15): the raw offset before 1900, the zone
// database's offset from 1900 on (local mean times included).
func TestJavaZoneOffset(t *testing.T) {
	cases := []struct {
		zone string
		sec  int64
		want int64 // seconds
	}{
		{"America/Los_Angeles", -5000000000, -28800},
		{"America/Los_Angeles", -2208988801, -28800},
		{"America/Los_Angeles", -1000000000, -28800},
		{"Asia/Kolkata", -3000000000, 19800},
		{"Asia/Kolkata", -2208988801, 19800},
		{"Asia/Kolkata", -2208988800, 19270},
		{"Asia/Kolkata", -2000000000, 19800},
		{"Asia/Shanghai", -2208988801, 28800},
		{"Asia/Shanghai", -2208988800, 29143},
		{"Europe/Moscow", -2208988801, 10800},
		{"Europe/Moscow", -2000000000, 9017},
		{"America/Sao_Paulo", -2700000000, -10800},
		{"America/Sao_Paulo", -2000000000, -11188},
		{"America/Sao_Paulo", -1000000000, -10800},
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatalf("%s: %v", c.zone, err)
		}
		if got := javaZoneOffset(loc, zoneRawOffset(loc), c.sec*1000); got != c.want*1000 {
			t.Errorf("%s at %d: offset %d ms, Java says %d s", c.zone, c.sec, got, c.want)
		}
	}
}
