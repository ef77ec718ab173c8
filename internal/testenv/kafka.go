package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka is a real Apache Kafka broker (KRaft, broker and controller in one
// JVM) on a loopback port, started from the jars resources/kafka's pom
// resolves. Stop and Start restart it on the same port and log directory,
// so a test can take the broker away under a running producer.
type Kafka struct {
	// Addr is the broker's host:port for seed_brokers.
	Addr string

	t     testing.TB
	java  string
	cp    string
	props string
	log   string
	cmd   *exec.Cmd
	done  chan struct{}
}

// kafkaClusterID is any base64 UUID; the log directory is formatted with it.
const kafkaClusterID = "MkU3OEVBNTcwNTJENDM2Qg"

// KafkaLibs returns the directory of the broker's jars: $KAFKA_LIBS, else
// resources/kafka/target/lib (what `mvn -q -B dependency:copy-dependencies`
// in resources/kafka writes, and .ci/run runs). Missing: a loud skip, or a
// failure in CI.
func KafkaLibs(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("KAFKA_LIBS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "resources", "kafka", "target", "lib")
	}
	jars, _ := filepath.Glob(filepath.Join(dir, "kafka_2.13-*.jar"))
	if len(jars) == 0 {
		Unavailable(t, "no Kafka broker jars in "+dir+" (run: cd resources/kafka && mvn -q -B dependency:copy-dependencies, or set KAFKA_LIBS); the real-Kafka tests DID NOT RUN")
	}
	return dir
}

// StartKafka formats a fresh KRaft log directory and starts the broker,
// returning once it accepted a produced record (about 5-30 s, most of it
// JVM start-up). The broker is killed at the end of the test.
func StartKafka(t testing.TB) *Kafka {
	t.Helper()
	libs := KafkaLibs(t)
	java, err := exec.LookPath("java")
	if err != nil {
		Unavailable(t, "no java on PATH for the Kafka broker")
	}
	dir := t.TempDir()
	port, cport := freePort(t), freePort(t)
	k := &Kafka{
		Addr:  fmt.Sprintf("127.0.0.1:%d", port),
		t:     t,
		java:  java,
		cp:    filepath.Join(libs, "*"),
		props: filepath.Join(dir, "server.properties"),
		log:   filepath.Join(dir, "kafka.log"),
	}
	props := strings.Join([]string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", cport),
		fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", port, cport),
		fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d", port),
		"controller.listener.names=CONTROLLER",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"inter.broker.listener.name=PLAINTEXT",
		"log.dirs=" + filepath.Join(dir, "data"),
		"num.partitions=3",
		"auto.create.topics.enable=true",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"share.coordinator.state.topic.replication.factor=1",
		"share.coordinator.state.topic.min.isr=1",
		"group.initial.rebalance.delay.ms=0",
		"",
	}, "\n")
	if err := os.WriteFile(k.props, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	format := exec.Command(java, append(jvmFlags(), "-cp", k.cp, "kafka.tools.StorageTool", "format", "-t", kafkaClusterID, "-c", k.props)...)
	if out, err := format.CombinedOutput(); err != nil {
		t.Fatalf("kafka storage format: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if k.cmd != nil {
			_ = k.cmd.Process.Kill()
			<-k.done
		}
	})
	k.Start()
	return k
}

// jvmFlags keep the JVMs small and quick to start on a shared 2-core
// machine.
func jvmFlags() []string {
	return []string{"-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Djava.awt.headless=true"}
}

// Start starts the broker (again, after Stop) and waits until it accepts
// a record, failing the test after two minutes.
func (k *Kafka) Start() {
	k.t.Helper()
	if k.cmd != nil {
		k.t.Fatal("kafka: Start while running")
	}
	logf, err := os.OpenFile(k.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		k.t.Fatal(err)
	}
	cmd := exec.Command(k.java, append(jvmFlags(), "-cp", k.cp, "kafka.Kafka", k.props)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		k.t.Fatalf("start kafka: %v", err)
	}
	k.cmd, k.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}(k.done)
	if err := k.waitReady(2 * time.Minute); err != nil {
		k.t.Fatalf("kafka on %s not ready: %v\nlog (%s):\n%s", k.Addr, err, k.log, tail(k.log, 4000))
	}
}

// Stop shuts the broker down cleanly (SIGTERM, killed after 60 s) and
// waits for the process to exit.
func (k *Kafka) Stop() {
	k.t.Helper()
	if k.cmd == nil {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.done:
	case <-time.After(60 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.done
	}
	k.cmd = nil
}

// CPU returns the user+system CPU time the running broker JVM has used so
// far (from /proc/<pid>/stat; Linux only, 0 elsewhere or when stopped).
// Benchmarks read it before and after a run: the broker shares the cores
// with the producer, so its cost is part of what a run measures.
func (k *Kafka) CPU() time.Duration {
	if k.cmd == nil || k.cmd.Process == nil {
		return 0
	}
	return procCPU(k.cmd.Process.Pid)
}

// procCPU is utime+stime of process pid, in clock ticks of 1/100 s (the
// USER_HZ of every Linux configuration Go supports).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(u+s) * 10 * time.Millisecond
}

// Log returns the end of the broker's log, for failure messages.
func (k *Kafka) Log() string { return tail(k.log, 4000) }

func (k *Kafka) waitReady(d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.Addr), kgo.AllowAutoTopicCreation(), kgo.DisableIdempotentWrite())
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		select {
		case <-k.done:
			return fmt.Errorf("the broker exited")
		default:
		}
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		err := cl.ProduceSync(pctx, &kgo.Record{Topic: "testenv-ready", Value: []byte("ready")}).FirstErr()
		pcancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
