-- Queens@TUD's whole UART board design (queens_uart from preusser/q27) live behind a TCP
-- port, so that a host can talk to it as to a board on a serial line: bytes from the host
-- go into its rx pin at the baud rate (8N1, back to back while the host has sent more), and
-- every byte from its tx pin goes back to the host. bridge.c (through GHDL's VHPIDIRECT)
-- holds the socket; serve-board.sh builds and runs this. The testbench is ours; the design
-- under test is not part of this repository.
--
-- One change to what crosses the wire: a result's last payload byte ends in bits the design
-- leaves undefined ('-'), and the simulator computes the CRC after them from an undefined
-- index, which no built board does (there they are some value, covered by the CRC). They go
-- out as 0, and the frame's CRC byte is recomputed to match (only in such a frame).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

package bridge is
  -- Listens on 127.0.0.1:tcp_port (0: any free port) and says so on stdout.
  impure function bridge_open(tcp_port : integer) return integer;
  attribute foreign of bridge_open : function is "VHPIDIRECT bridge_open";
  -- The host's next byte, or -1; idle /= 0 lets it wait for the host a few milliseconds.
  impure function bridge_rx(idle : integer) return integer;
  attribute foreign of bridge_rx : function is "VHPIDIRECT bridge_rx";
  procedure bridge_tx(byte : integer);
  attribute foreign of bridge_tx : procedure is "VHPIDIRECT bridge_tx";
end package;

package body bridge is
  -- Never called: the foreign attribute replaces them.
  impure function bridge_open(tcp_port : integer) return integer is
  begin
    report "VHPIDIRECT bridge_open not linked" severity failure;
    return -1;
  end function;
  impure function bridge_rx(idle : integer) return integer is
  begin
    report "VHPIDIRECT bridge_rx not linked" severity failure;
    return -1;
  end function;
  procedure bridge_tx(byte : integer) is
  begin
    report "VHPIDIRECT bridge_tx not linked" severity failure;
  end procedure;
end package body;

library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;
use work.bridge.all;
library poc;
use poc.utils.all; -- log2ceil

entity bridge_tb is
  generic (
    N            : positive := 10;
    SOLVERS      : positive := 4;
    COUNT_CYCLES : boolean  := true;
    -- 1.8432 MHz: 16 cycles a bit at 115,200 baud, the fewest their UART divider allows.
    CLK_FREQ     : positive := 1843200;
    BAUDRATE     : positive := 115200;
    TCP_PORT     : natural  := 7027
  );
end entity;

architecture sim of bridge_tb is
  constant BIT_CYCLES  : positive := CLK_FREQ / BAUDRATE;
  -- Simulated time is only a count of cycles. 2 ps a cycle: 64-bit femtoseconds run out
  -- after 4.6e15 cycles, decades of board time, so the simulation never ends on its own.
  constant PERIOD      : time     := 2 ps;
  constant BIT_TIME    : time     := BIT_CYCLES * PERIOD;

  -- A result frame: sentinel, payload, CRC; the payload as queens_chain's result buffer.
  constant PRE_BYTES : positive := (4*2*log2ceil(N) - 1 + 7) / 8;
  constant PAYLOAD   : positive := ((48 * boolean'pos(COUNT_CYCLES)) + 8*PRE_BYTES + 52 + 7) / 8;

  -- Their enframe's CRC-8: polynomial 0x1D5, MSB first, from 0xF9.
  function crc8(crc : unsigned(7 downto 0); b : natural) return unsigned is
    variable c : unsigned(7 downto 0) := crc xor to_unsigned(b, 8);
  begin
    for i in 0 to 7 loop
      if c(7) = '1' then
        c := (c(6 downto 0) & '0') xor x"D5";
      else
        c := c(6 downto 0) & '0';
      end if;
    end loop;
    return c;
  end function;

  signal clk   : std_logic := '0';
  signal rst   : std_logic := '1';
  signal rx    : std_logic := '1';
  signal tx    : std_logic;

  -- Whether the board holds anything, without looking inside (GHDL 2.0 has no external
  -- names): every frame their unframer would commit (sentinel, PRE_BYTES, sound CRC) makes
  -- exactly one result frame, so it is idle once as many have come back. A frame the board
  -- dropped (no flow control) never comes back: after QUIET cycles without a byte from it
  -- the count starts over. Both count modulo 2**30 so that they never overflow.
  constant QUIET   : positive := 2**16;  -- N = 10's dearest subproblem takes 41 cycles
  signal committed : natural  := 0;
  signal answered  : natural  := 0;
begin
  dut : entity work.queens_uart
    generic map (
      N => N, L => 2, SOLVERS => SOLVERS, COUNT_CYCLES => COUNT_CYCLES,
      CLK_FREQ => CLK_FREQ, BAUDRATE => BAUDRATE, SENTINEL => x"FA"
    )
    port map (clk => clk, rst => rst, rx => rx, tx => tx, avail => open);

  clocking : process
  begin
    -- The first edge comes after every signal has its first value (PoC's bit clock divider
    -- takes an undefined carry into its counter for good otherwise).
    loop
      wait for PERIOD / 2;
      clk <= '1';
      wait for PERIOD / 2;
      clk <= '0';
    end loop;
  end process;

  send : process
    variable b    : integer;
    variable v    : std_logic_vector(7 downto 0);
    variable idle : integer;
    variable at   : natural := 0;  -- as their unframer: 0 hunting, then the byte's place
    variable crc  : unsigned(7 downto 0);
  begin
    b := bridge_open(TCP_PORT);
    for i in 1 to 16 loop
      wait until rising_edge(clk);
    end loop;
    rst <= '0';
    loop
      -- Asked once a bit time while the line is free: the host's bytes go out back to back.
      idle := 0;
      if committed = answered then
        idle := 1;
      end if;
      b := bridge_rx(idle);
      if b < 0 then
        wait for BIT_TIME;
      else
        if at = 0 then
          if b = 16#FA# then
            crc := x"F9";
            at := 1;
          end if;
        elsif at <= PRE_BYTES then
          crc := crc8(crc, b);
          at := at + 1;
        else
          if b = to_integer(crc) then
            committed <= (committed + 1) mod 2**30;
          end if;
          at := 0;
        end if;
        v := std_logic_vector(to_unsigned(b, 8));
        rx <= '0';
        wait for BIT_TIME;
        for k in 0 to 7 loop
          rx <= v(k);
          wait for BIT_TIME;
        end loop;
        rx <= '1';
        wait for BIT_TIME;
      end if;
    end loop;
  end process;

  receive : process
    variable v, m      : natural;
    variable at        : natural := 0;  -- the byte's place in its frame
    variable crc       : unsigned(7 downto 0);
    variable undefined : boolean;
  begin
    wait until rst = '0';
    loop
      wait until tx = '0' for QUIET * PERIOD;
      if tx /= '0' then
        answered <= committed;
        wait until tx = '0';
      end if;
      -- To the middle of the start bit, then one bit at a time.
      wait for (BIT_CYCLES/2) * PERIOD;
      v := 0;
      m := 0;
      for k in 0 to 7 loop
        wait for BIT_TIME;
        case tx is
          when '1' | 'H' => v := v + 2**k;
          when '0' | 'L' => null;
          when others    => m := m + 2**k;
        end case;
      end loop;
      wait for BIT_TIME;
      assert tx = '1' report "bridge_tb: no stop bit" severity error;
      -- Frames come whole and back to back, so counting bytes keeps their boundaries.
      if at = 0 then
        assert v = 16#FA# report "bridge_tb: a frame without its sentinel" severity error;
        crc := x"F9";
        undefined := false;
      elsif at <= PAYLOAD then
        crc := crc8(crc, v);
        undefined := undefined or m /= 0;
      elsif undefined then
        v := to_integer(crc);
      end if;
      if at = PAYLOAD + 1 then
        answered <= (answered + 1) mod 2**30;
      end if;
      at := (at + 1) mod (PAYLOAD + 2);
      bridge_tx(v);
    end loop;
  end process;
end architecture;
