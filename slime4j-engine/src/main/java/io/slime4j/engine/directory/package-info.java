/**
 * Where engines find each other: the {@link io.slime4j.engine.directory.Directory} SPI, the
 * {@link io.slime4j.engine.directory.PeerRecord} each engine publishes under a lease, and the
 * backends — {@link io.slime4j.engine.directory.FileDirectory} (embedded, one host, no server),
 * {@link io.slime4j.engine.directory.RedisDirectory} (Lettuce) and
 * {@link io.slime4j.engine.directory.EtcdDirectory} (etcd's v3 JSON gateway). Open one by URL with
 * {@link io.slime4j.engine.directory.Directories#open(String)}.
 */
package io.slime4j.engine.directory;
