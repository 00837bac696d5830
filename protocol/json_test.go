package protocol

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// jsonKinds holds every kind EncodeJSON and DecodeJSON handle, so that the comparison with encoding/json
// covers more than the wire types happen to use today.
type jsonKinds struct {
	I8     int8               `json:"i8"`
	I64    int64              `json:"i64,omitempty"`
	U8     uint8              `json:"u8"`
	U32    uint32             `json:"u32,omitempty"`
	F32    float32            `json:"f32"`
	F64    float64            `json:"f64,omitempty"`
	B      bool               `json:"b"`
	S      string             `json:"s,omitempty"`
	NoTag  string             // encoded under its Go name
	BadTag string             `json:"a\"b"` // not a name encoding/json uses: the Go name again
	Skip   string             `json:"-"`
	hidden string             // unexported: never encoded
	P      *float64           `json:"p,omitempty"`
	PP     **int              `json:"pp"`
	L      []string           `json:"l"`
	LL     [][]int            `json:"ll,omitempty"`
	A      [2]int             `json:"a"`
	M      map[string]int     `json:"m,omitempty"`
	MS     map[string]Skip    `json:"ms,omitempty"`
	MP     map[string]*Log    `json:"mp"`
	Sub    *jsonKinds         `json:"sub,omitempty"`
	Done   Done               `json:"done"`
	MM     map[string][]uint8 `json:"-"`
}

// jsonTargets returns a new value of every type the agent decodes or encodes, and of jsonKinds.
func jsonTargets() []any {
	return []any{new(Plan), new(Facts), new(Point), new(Skip), new(Raw), new(Log), new(Kernel), new(Begin),
		new(Done), new(VerifyReport), new(Transfer), new(Hello), new(jsonKinds)}
}

var jsonSeeds = []string{
	`{"openssl":"openssl","env":{"OPENSSL_CONF":"/x"},"algorithms":["aes-128-cbc"],"modes":["soft","cpu"],` +
		`"sizes":[16,8192],"seconds":0.5,"threads":2,"repeats":3,"decrypt":true,"validity_limits":` +
		`{"background_peak_pct":1.5},"verify_sign":{"rsa2048":{}}}`,
	`{"ALGORITHMS":["a"],"Modes":["b"],"seconds":1e-7,"sizes":[],"env":null,"validity_limits":null}`,
	`{"i8":-128,"u8":255,"f32":3.4e38,"b":false,"NoTag":"x","pp":7,"l":["\u003c\ud83d\ude00\ud800"],` +
		`"ll":[[1],[],null],"a":[1],"m":{"z":1,"a":2},"ms":{"k":{"mode":"m"}},"mp":{"n":null,"l":{"msg":"\u2028"}},` +
		`"sub":{"sub":{"s":"deep"}},"done":{"points":1}}`,
	`{"i8":128}`, `{"u8":-1}`, `{"f32":1e39}`, `{"i64":1.5}`, `{"l":"x"}`, `{"a":[1,2,3]}`,
	`{"m":{"a":1},"m":{"b":2}}`, `{"l":["a","b"],"l":["c"]}`, `{"\u212aEY":1, "ſ":2}`,
	`[]`, `null`, ` {} `, `{} x`, `{"a":}`, `{"s":"\x01"}`, `{"s":"\'"}`, `{"s":"\uZZZZ"}`, "{\"s\":\"\xff\xfe\"}",
	`{"f64":-0,"i64":-0}`, `{"f64":01}`, `{"f64":1.}`, `{"f64":.5}`, `{"f64":1e}`, `{"f64":-}`, `tru`, `"x"`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"ll":` + strings.Repeat("[", 9998) + "1" + strings.Repeat("]", 9998) + `}`,
}

// checkJSON decodes data into every target with both codecs and requires the same verdict and the same value,
// and the same bytes when the value is encoded again.
func checkJSON(t *testing.T, data []byte) {
	for _, target := range jsonTargets() {
		want, got := reflect.New(reflect.TypeOf(target).Elem()), reflect.New(reflect.TypeOf(target).Elem())
		wantErr := json.Unmarshal(data, want.Interface())
		gotErr := DecodeJSON(data, got.Interface())
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%T from %q: DecodeJSON error %v, encoding/json error %v", target, data, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			t.Fatalf("%T from %q: DecodeJSON gives %+v, encoding/json %+v", target, data, got.Elem(), want.Elem())
		}
		checkEncode(t, want.Interface())
	}
}

func checkEncode(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, gotErr := EncodeJSON(v)
	if (wantErr == nil) != (gotErr == nil) || string(got) != string(want) {
		t.Fatalf("EncodeJSON(%+v) = %s, %v; encoding/json %s, %v", v, got, gotErr, want, wantErr)
	}
}

func TestJSONAgainstEncodingJSON(t *testing.T) {
	for _, s := range jsonSeeds {
		checkJSON(t, []byte(s))
	}
	for _, line := range protocolSeedLines(t) {
		checkJSON(t, line)
	}
}

func TestEncodeJSONValues(t *testing.T) {
	n, f := 3, 0.25
	pn := &n
	for _, v := range []any{
		nil, 1.5, float32(0.1), 1e21, 1e-6, 9.99e-7, -1e-300, float32(1e-7), math.MaxFloat64, 0.0, "",
		"<a&b>\"\\/\b\f\n\r\t\x00\x1f\x7f\xff\xc3\x28é\u2028\u2029😀", []int(nil), []int{}, map[string]int(nil),
		jsonKinds{P: &f, PP: &pn, L: []string{}, M: map[string]int{"b": 1, "a": 2, "": 0}, Sub: &jsonKinds{}},
		&Point{Mode: "cpu", Count: 1e-9, Flags: []string{"x"}, Evidence: &Evidence{}},
	} {
		checkEncode(t, v)
	}
	for _, v := range []any{math.NaN(), math.Inf(1), []byte("x"), map[int]string{1: "a"}, make(chan int),
		struct{ Skip }{}, struct {
			X int `json:"x,string"`
		}{}} {
		if _, err := EncodeJSON(v); !errors.Is(err, ErrUnsupportedJSON) {
			t.Errorf("EncodeJSON(%T) error %v, want ErrUnsupportedJSON", v, err)
		}
	}
}

func TestDecodeJSONRefusesNonPointer(t *testing.T) {
	var p Plan
	for _, v := range []any{p, (*Plan)(nil), nil} {
		if err := DecodeJSON([]byte(`{}`), v); !errors.Is(err, ErrUnsupportedJSON) {
			t.Errorf("DecodeJSON into %T: error %v, want ErrUnsupportedJSON", v, err)
		}
	}
}

// FuzzJSONAgainstEncodingJSON: whatever the input, DecodeJSON and EncodeJSON agree with encoding/json.
func FuzzJSONAgainstEncodingJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	for _, line := range protocolSeedLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkJSON(t, data) })
}
