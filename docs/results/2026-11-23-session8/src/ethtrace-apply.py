# Inserts ethTrace calls into channels/connection_ethernet.go (variant build only).
import sys
p = sys.argv[1]; s = open(p).read()
def rep(old, new, count=1):
    global s
    assert s.count(old) == count, (old, s.count(old))
    s = s.replace(old, new)
rep("""	c.produce.Lock()
	defer c.produce.Unlock()
	err := runSteps(c, ch, t)
	if serr := c.sendCtl(); err == nil {
		err = serr
	}
	return err""", """	c.produce.Lock()
	defer c.produce.Unlock()
	ethTrace('T', int(t.Type()), t.Size())
	err := runSteps(c, ch, t)
	if serr := c.sendCtl(); err == nil {
		err = serr
	}
	ethTrace('E', -1, 0)
	return err""")
rep("""				if err := slot.q.ToHost(slot.stage, seg.src.Add(at), slot.n); err != nil {
					return err
				}""", """				if err := slot.q.ToHost(slot.stage, seg.src.Add(at), slot.n); err != nil {
					return err
				}
				ethTrace('C', s.k, slot.n)""")
rep("""	s.c.staged.Add(slot.n)
	if err := s.sock.writev(slot.hdr[:], slot.stage.Host[:slot.n]); err != nil {
		return err
	}""", """	s.c.staged.Add(slot.n)
	ethTrace('S', s.k, slot.n)
	if err := s.sock.writev(slot.hdr[:], slot.stage.Host[:slot.n]); err != nil {
		return err
	}
	ethTrace('W', s.k, slot.n)""")
rep("""		if err := r.sock.readFull(hdr[:]); err != nil {
			return err
		}
		id := binary""", """		if err := r.sock.readFull(hdr[:]); err != nil {
			return err
		}
		ethTrace('H', r.k, uint64(hdr[0]))
		id := binary""")
rep("""				if err := r.sock.readFull(slot.stage.Host[:k]); err != nil {
					return err
				}""", """				if err := r.sock.readFull(slot.stage.Host[:k]); err != nil {
					return err
				}
				ethTrace('R', r.k, k)""")
rep("""		r.oldest = (r.oldest + 1) % len(r.slots)
		r.pending--
	}""", """		r.oldest = (r.oldest + 1) % len(r.slots)
		r.pending--
		ethTrace('L', r.k, 0)
	}""")
rep("""		t.queue = t.queue[1:]
		if err := t.store(c, m); err != nil {
			return err
		}""", """		t.queue = t.queue[1:]
		if err := t.store(c, m); err != nil {
			return err
		}
		ethTrace('A', -1, m.seq)""")
rep("""	close(c.stop)
	c.shutdown()
	c.wg.Wait()""", """	close(c.stop)
	c.shutdown()
	c.wg.Wait()
	ethTraceDump()""")
open(p, 'w').write(s)
s2 = open(p).read()
old = """	if err := r.sock.readFull(unsafe.Slice((*byte)(unsafe.Add(mem.host, off)), n)); err != nil {
		return err
	}"""
assert s2.count(old) == 1
s2 = s2.replace(old, old + "\n\tethTrace('R', r.k, n)")
open(p, 'w').write(s2)
