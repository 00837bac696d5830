package opensslspeed

import "strconv"

// The slots of a run: one per measurement, filled by progress lines and result tables in either order.

// speedKey identifies one measurement inside a run.
type speedKey struct {
	alg, op     string
	block, bits int
	curve       string
}

// speedSlot gathers what the output says about one measurement: the progress line (count, seconds) and the
// table or -mr result (a rate), which may come in either order.
type speedSlot struct {
	key       speedKey
	count     float64
	seconds   float64
	hasCount  bool
	countLine int
	nominal   float64
	value     float64 // B/s or ops/s as openssl printed it
	hasValue  bool
	valueLine int
	valueMR   bool            // the value came from a -mr +F line
	children  map[int]float64 // -multi: each child's rate ("Got: +F... from N")
	childLine int
	flags     []string
}

func (b *speedRunBuilder) hasTableValues() bool {
	for _, s := range b.slots {
		if s.hasValue && !s.valueMR {
			return true
		}
	}
	return false
}

// find returns the slot of key. A key without a curve (ecdsa progress lines name none) matches the first slot of
// the same algorithm, operation and size; a key with a curve adopts a curve-less slot.
func (b *speedRunBuilder) find(key speedKey, forCount bool) *speedSlot {
	for _, s := range b.slots {
		if s.key == key {
			return s
		}
	}
	for _, s := range b.slots {
		k := s.key
		if k.alg != key.alg || k.op != key.op || k.block != key.block || k.bits != key.bits {
			continue
		}
		if key.curve == "" && (!forCount || !s.hasCount) {
			return s
		}
		if k.curve == "" && !s.hasValue && len(s.children) == 0 {
			s.key.curve = key.curve
			return s
		}
	}
	return nil
}

// slot returns the slot of key, adding it. A key that cannot be a measurement (a name with control characters,
// more measurements than a run can have) is a Problem at line and gets a slot outside the run, which the caller
// fills to no effect.
func (b *speedRunBuilder) slot(key speedKey, forCount bool, line int) *speedSlot {
	if s := b.find(key, forCount); s != nil {
		return s
	}
	return b.addSlot(key, line)
}

// addSlot adds a slot for key even where one exists (a second curve of the same size), under slot's checks.
func (b *speedRunBuilder) addSlot(key speedKey, line int) *speedSlot {
	s := &speedSlot{key: key}
	for _, name := range []string{key.alg, key.curve} {
		if msg := speedBadName(name); msg != "" {
			b.problem(line, "algorithm "+msg)
			return s
		}
	}
	if len(b.slots) >= speedMaxSlots {
		b.problem(line, "more than "+strconv.Itoa(speedMaxSlots)+" measurements in one run: not openssl speed output")
		return s
	}
	b.slots = append(b.slots, s)
	return s
}

// countSlot returns the slot a progress line (or +R line) fills, starting a new run when this one already has
// that measurement or has printed its results and this measurement is not among them.
func (p *speedParser) countSlot(key speedKey, line int) (*speedRunBuilder, *speedSlot) {
	b := p.cur(line)
	s := b.find(key, true)
	if key.curve == "" && key.block == 0 && speedCurveOrder(key.alg) != nil && !b.finished() {
		another := b.nextCurve(key)
		if s != nil && s.hasCount && another {
			// another curve of the same size (nistb163 after nistk163): a slot of its own in this run
			p.settle(b)
			return b, b.addSlot(key, line)
		}
	}
	if (s != nil && s.hasCount) || (s == nil && b.finished()) {
		b = p.start(line, nil)
	}
	p.settle(b)
	return b, b.slot(key, true, line)
}

// valueSlot returns the slot a table cell or +F value fills, starting a new run when it is already filled.
func (p *speedParser) valueSlot(key speedKey, line int) (*speedRunBuilder, *speedSlot) {
	b := p.cur(line)
	if s := b.find(key, false); s != nil && s.hasValue {
		b = p.start(line, nil)
	}
	p.settle(b)
	return b, b.slot(key, false, line)
}

func (b *speedRunBuilder) symTableMR() bool {
	for _, s := range b.slots {
		if s.hasValue && s.valueMR {
			return true
		}
	}
	return false
}
