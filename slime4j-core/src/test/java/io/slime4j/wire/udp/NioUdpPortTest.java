package io.slime4j.wire.udp;

/** {@link UdpPortTest} on the NIO backend (the parent runs on the default, native under the build). */
class NioUdpPortTest extends UdpPortTest {

    @Override
    UdpConfig config() {
        return UdpConfig.builder().backend(UdpConfig.Backend.NIO).build();
    }
}
