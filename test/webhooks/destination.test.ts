import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyAddress,
  DestinationRefusedError,
  resolveDestination,
  type DestinationPolicy,
} from '../../src/webhooks/destination.ts';

describe('address classification', () => {
  it('finds loopback in IPv4, IPv6 and IPv4-mapped IPv6', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(classifyAddress(address), 'loopback', address);
    }
  });

  it('finds private, link-local, CGNAT, multicast, unspecified and reserved addresses', () => {
    for (const address of [
      '0.0.0.0',
      '10.0.0.1',
      '100.64.0.1',
      '100.127.255.254',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '192.168.0.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.251',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '::',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::ffff:0:0',
      '::10.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b:1::1',
      '100::1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fdff:ffff::1',
      'fec0::1',
      'ff02::1',
      '2001::1',
      '2001:db8::1',
      '2002:c0a8:101::1',
      '3fff::1',
      'not-an-address',
    ]) {
      assert.equal(classifyAddress(address), 'internal', address);
    }
  });

  it('passes public unicast addresses', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '93.184.215.14',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '223.255.255.255',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82b::200e',
      '2001:4860:4860::8888',
    ]) {
      assert.equal(classifyAddress(address), 'public', address);
    }
  });
});

describe('destinations', () => {
  const live: DestinationPolicy = { environment: 'live', allowLoopback: true };
  const test: DestinationPolicy = { environment: 'test', allowLoopback: true };
  const strictTest: DestinationPolicy = { environment: 'test', allowLoopback: false };

  const refused = async (url: string, policy: DestinationPolicy, message: RegExp) => {
    await assert.rejects(resolveDestination(url, policy), (error: unknown) => {
      assert.ok(error instanceof DestinationRefusedError);
      assert.match(error.message, message);
      return true;
    });
  };

  it('needs https, except for test endpoints where loopback is allowed', async () => {
    await refused('http://93.184.215.14/x', live, /https/);
    await refused('http://93.184.215.14/x', strictTest, /https/);
    await refused('ftp://93.184.215.14/x', test, /https/);
    await refused('nonsense', test, /valid absolute URL/);
    const plain = await resolveDestination('http://127.0.0.1:8080/x', test);
    assert.deepEqual([plain.address, plain.family, plain.url.port], ['127.0.0.1', 4, '8080']);
  });

  it('allows loopback only to test endpoints where configuration allows, and nothing internal', async () => {
    await refused('https://127.0.0.1/x', live, /loopback addresses/);
    await refused('https://[::1]/x', strictTest, /loopback addresses/);
    await refused('http://10.0.0.1/x', test, /public addresses only/);
    await refused('https://0177.0.0.1/x', live, /loopback addresses/);
    const resolved = await resolveDestination('http://localhost/x', test);
    assert.equal(classifyAddress(resolved.address), 'loopback');
    await refused('https://localhost/x', live, /loopback addresses/);
  });

  it('says which rule refused a URL, never what its host resolves to', async () => {
    const anAddress = /\d+\.\d+\.\d+\.\d+|[0-9a-f]*::[0-9a-f]*/i;
    for (const [url, policy] of [
      ['https://localhost/x', live],
      ['https://localhost:8443/x', strictTest],
      ['https://0177.0.0.1/x', live],
      ['https://0x7f.1/x', live],
      ['https://[::ffff:10.1.2.3]/x', live],
      ['https://169.254.169.254/latest', live],
      ['https://[fd00::1]/x', live],
    ] as const) {
      await assert.rejects(resolveDestination(url, policy), (error: unknown) => {
        assert.ok(error instanceof DestinationRefusedError);
        assert.doesNotMatch(error.message, anAddress, `${url}: ${error.message}`);
        assert.match(error.message, /loopback addresses|public addresses only/);
        return true;
      });
    }
  });

  it('connects to the address it checked', async () => {
    const v6 = await resolveDestination('https://[2606:4700:4700::1111]/x', live);
    assert.deepEqual([v6.address, v6.family], ['2606:4700:4700::1111', 6]);
    const v4 = await resolveDestination('https://1.1.1.1:8443/x', live);
    assert.deepEqual([v4.address, v4.family], ['1.1.1.1', 4]);
  });
});
