// Replication: replication_server / replication_client over delta packets,
// and the link simulator that tests them (docs/design/replication-server.md).
#pragma once

#include <bitrep/coded_delta.hpp>
#include <bitrep/delta.hpp>
#include <bitrep/replication/client.hpp>
#include <bitrep/replication/ids.hpp>
#include <bitrep/replication/link_simulator.hpp>
#include <bitrep/replication/options.hpp>
#include <bitrep/replication/packet.hpp>
#include <bitrep/replication/server.hpp>
